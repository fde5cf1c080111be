package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * A real (local) job with generic types disabled: any fallback to Kryo for the record types would
 * fail it. Records cross the source and a rebalance, so they go through the serializers.
 */
class DecodePipelineTest {

  @Test
  void recordTypesUseOwnSerializersInAJob() throws Exception {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);

    List<RawRecord> in = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      String v = i % 5 == 0 ? "ftp://x/" + i : "HTTP://Host" + i + ".example.com/a/../b";
      in.add(
          new RawRecord(
              null, v.getBytes(UTF_8), RecordHeaders.of("i", new byte[] {(byte) i}), "t@" + i));
    }
    DecodeConfig config = DecodeConfig.builder().hashSeed(3).shards(16).build();
    SingleOutputStreamOperator<UrlRecord> decoded =
        env.fromData(in).rebalance().process(new DecodeFunction(config));
    assertInstanceOf(
        UrlRecordSerializer.class,
        decoded.getType().createSerializer(env.getConfig().getSerializerConfig()));
    DataStream<DeadLetter> dead = decoded.getSideOutput(DecodeFunction.DEAD_LETTERS);
    assertInstanceOf(
        DeadLetterSerializer.class,
        dead.getType().createSerializer(env.getConfig().getSerializerConfig()));

    DataStream<String> all =
        decoded
            .rebalance()
            .map(r -> "ok " + r.shard + " " + r.url())
            .returns(Types.STRING)
            .union(
                dead.rebalance()
                    .map(d -> "dead " + d.reason.label() + " " + d.origin)
                    .returns(Types.STRING));
    int ok = 0;
    int bad = 0;
    try (CloseableIterator<String> it = all.executeAndCollect("decode-pipeline-test")) {
      while (it.hasNext()) {
        String s = it.next();
        if (s.startsWith("ok ")) {
          ok++;
        } else {
          assertEquals("dead unsupported_scheme", s.substring(0, s.indexOf(" t@")));
          bad++;
        }
      }
    }
    assertEquals(40, ok);
    assertEquals(10, bad);
  }
}
