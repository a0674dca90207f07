/** Reading the dev-stack broker's topics and building the records tests send to it. */
package dev.inboxoutbox.testing.kafka;
