package io.urldedup.bench;
