package io.urldedup.stateops;

/**
 * One piece of a shard's filter on its way into a savepoint (a Flink POJO): the header ({@link
 * io.urldedup.state.FilterHeaderSerializer} bytes; {@code words} null) or one 4 KiB page ({@code
 * header} null). {@link BootstrapFilterOperator} emits a shard as its header and its pages, so no
 * record is larger than a page and a shard of any size streams through.
 */
public class ShardPage {

  public int shard;
  public long pageId;
  public long[] words;
  public byte[] header;

  public ShardPage() {}

  static ShardPage header(int shard, byte[] header) {
    ShardPage p = new ShardPage();
    p.shard = shard;
    p.header = header;
    return p;
  }

  static ShardPage page(int shard, long pageId, long[] words) {
    ShardPage p = new ShardPage();
    p.shard = shard;
    p.pageId = pageId;
    p.words = words;
    return p;
  }
}
