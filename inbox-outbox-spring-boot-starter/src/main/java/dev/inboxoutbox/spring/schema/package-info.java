/**
 * The starter's schema support: Spring Boot's Flyway auto-configuration made safe for instances
 * that start together on one database.
 */
package dev.inboxoutbox.spring.schema;
