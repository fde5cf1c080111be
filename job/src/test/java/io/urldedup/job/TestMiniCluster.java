package io.urldedup.job;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The mini cluster the job tests share: one task manager, slots as the test's parallelism needs.
 */
final class TestMiniCluster {

  private TestMiniCluster() {}

  static MiniClusterExtension withSlots(int slots) {
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(slots)
            .build());
  }
}
