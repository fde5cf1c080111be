/**
 * The dedup operator's state outside a running job, through Flink's State Processor API: read real
 * savepoints and retained checkpoints of the operator (its uid and state names) for {@code inspect}
 * and {@code probe}, and write savepoints that a job restores ({@code bootstrap}).
 */
package io.urldedup.stateops;
