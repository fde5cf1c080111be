package io.urldedup.samples;
