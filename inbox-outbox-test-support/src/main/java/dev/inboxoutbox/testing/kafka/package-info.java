/** Reading and writing the dev-stack broker's topics, and building the records tests send. */
package dev.inboxoutbox.testing.kafka;
