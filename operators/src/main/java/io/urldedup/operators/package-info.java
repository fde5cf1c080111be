package io.urldedup.operators;
