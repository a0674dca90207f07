CREATE TABLE things (id bigint PRIMARY KEY);
