package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for one 4 KiB page in {@code MapState<Long, long[]>}: exactly {@link
 * PageStore#PAGE_WORDS} longs via {@link DataOutputView#writeLong} (fixed length 4096 bytes, no
 * length prefix). Stateless.
 */
public final class PageSerializer extends TypeSerializer<long[]> {

  private static final long serialVersionUID = 1L;

  public static final PageSerializer INSTANCE = new PageSerializer();

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<long[]> duplicate() {
    return this;
  }

  @Override
  public long[] createInstance() {
    return new long[PageStore.PAGE_WORDS];
  }

  @Override
  public long[] copy(long[] from) {
    return from.clone();
  }

  @Override
  public long[] copy(long[] from, long[] reuse) {
    if (reuse == null || reuse.length != PageStore.PAGE_WORDS) {
      return from.clone();
    }
    System.arraycopy(from, 0, reuse, 0, PageStore.PAGE_WORDS);
    return reuse;
  }

  @Override
  public int getLength() {
    return PageStore.PAGE_BYTES;
  }

  @Override
  public void serialize(long[] page, DataOutputView target) throws IOException {
    if (page.length != PageStore.PAGE_WORDS) {
      throw new IllegalArgumentException(
          "a page has " + PageStore.PAGE_WORDS + " words, got " + page.length);
    }
    for (long w : page) {
      target.writeLong(w);
    }
  }

  @Override
  public long[] deserialize(DataInputView source) throws IOException {
    return deserialize(null, source);
  }

  @Override
  public long[] deserialize(long[] reuse, DataInputView source) throws IOException {
    long[] page =
        reuse != null && reuse.length == PageStore.PAGE_WORDS
            ? reuse
            : new long[PageStore.PAGE_WORDS];
    for (int i = 0; i < page.length; i++) {
      page[i] = source.readLong();
    }
    return page;
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    target.write(source, PageStore.PAGE_BYTES);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof PageSerializer;
  }

  @Override
  public int hashCode() {
    return PageSerializer.class.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<long[]> snapshotConfiguration() {
    return new PageSerializerSnapshot();
  }

  private Object readResolve() {
    return INSTANCE;
  }
}
