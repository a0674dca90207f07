/** The starter's Spring MVC support: request limits for the endpoints of a servlet application. */
package dev.inboxoutbox.spring.web;
