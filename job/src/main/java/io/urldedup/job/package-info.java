package io.urldedup.job;
