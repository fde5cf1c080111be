package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of {@link PageSerializer}. Version 1; it records the page size in words, the one
 * parameter of the layout: same page size resolves compatible as is, any other is incompatible
 * (pages would have to be re-cut, which changes block addressing).
 */
public final class PageSerializerSnapshot implements TypeSerializerSnapshot<long[]> {

  static final int VERSION = 1;

  private int pageWords = PageStore.PAGE_WORDS;

  public PageSerializerSnapshot() {}

  @Override
  public int getCurrentVersion() {
    return VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) throws IOException {
    out.writeInt(pageWords);
  }

  @Override
  public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
      throws IOException {
    if (readVersion < 1 || readVersion > VERSION) {
      throw new IOException(
          "PageSerializerSnapshot version "
              + readVersion
              + " is newer than this build ("
              + VERSION
              + ")");
    }
    pageWords = in.readInt();
  }

  public int pageWords() {
    return pageWords;
  }

  @Override
  public TypeSerializer<long[]> restoreSerializer() {
    if (pageWords != PageStore.PAGE_WORDS) {
      throw new IllegalStateException(
          "state pages have " + pageWords + " words; this build uses " + PageStore.PAGE_WORDS);
    }
    return PageSerializer.INSTANCE;
  }

  @Override
  public TypeSerializerSchemaCompatibility<long[]> resolveSchemaCompatibility(
      TypeSerializerSnapshot<long[]> oldSerializerSnapshot) {
    if (oldSerializerSnapshot instanceof PageSerializerSnapshot old
        && old.pageWords == PageStore.PAGE_WORDS) {
      return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
    return TypeSerializerSchemaCompatibility.incompatible();
  }
}
