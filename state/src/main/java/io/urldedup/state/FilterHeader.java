package io.urldedup.state;

/** Placeholder until the filter core lands. */
public final class FilterHeader {}
