/**
 * What the {@code plan} and {@code inspect} commands print, once as facts and twice as output: the
 * facts of a snapshot ({@link io.urldedup.stateops.report.StateReport}; a plan's are {@link
 * io.urldedup.state.plan.FilterPlan}), text renderers, and JSON trees that the one {@link
 * io.urldedup.stateops.report.JsonWriter} prints for both commands.
 */
package io.urldedup.stateops.report;
