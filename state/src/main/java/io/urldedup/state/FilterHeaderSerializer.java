package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for {@link FilterHeader} in keyed {@code ValueState}: the {@link
 * FilterHeaderCodec} layout (explicit little-endian, version-prefixed records; each header in the
 * lowest version that represents it). Reads every version; stateless but for the newest header
 * layout version it declares in its snapshot ({@link #forSpec}): a job whose headers never need the
 * newest layout declares the one they need, so that a savepoint restores into a build that predates
 * the newest (Flink checks the snapshot before any record is read).
 */
public final class FilterHeaderSerializer extends TypeSerializer<FilterHeader> {

  private static final long serialVersionUID = 1L;

  /** Declares {@link FilterHeader#FORMAT_VERSION}. */
  public static final FilterHeaderSerializer INSTANCE = new FilterHeaderSerializer();

  /**
   * The version a job with insert logs ({@code --materialize-every} above 1) declares: its records
   * are the usual layouts (at most {@link FilterHeader#FORMAT_VERSION}), but a shard's state is its
   * header and pages plus the log chunks written since, which must be replayed. A build before this
   * one would restore the pages and silently drop the logs; declaring a layout it does not know
   * makes it refuse the savepoint at once (its snapshot resolves this as incompatible).
   */
  public static final int LOGGED_LAYOUT_VERSION = FilterHeader.FORMAT_VERSION + 1;

  private final int layoutVersion;

  public FilterHeaderSerializer() {
    this(FilterHeader.FORMAT_VERSION);
  }

  FilterHeaderSerializer(int layoutVersion) {
    if (layoutVersion < 1 || layoutVersion > LOGGED_LAYOUT_VERSION) {
      throw new IllegalArgumentException("filter header layout version " + layoutVersion);
    }
    this.layoutVersion = layoutVersion;
  }

  /**
   * The serializer of a job's headers: it declares the newest layout version new headers of {@code
   * spec} are written in (stable and scalable 2, aged 4); restored headers are written in their
   * own, which is never newer (an aged layout 1 header: 3).
   */
  public static FilterHeaderSerializer forSpec(FilterSpec spec, boolean logged) {
    return logged ? new FilterHeaderSerializer(LOGGED_LAYOUT_VERSION) : forSpec(spec);
  }

  /** {@link #forSpec(FilterSpec, boolean)} of a job without insert logs. */
  public static FilterHeaderSerializer forSpec(FilterSpec spec) {
    return new FilterHeaderSerializer(
        spec instanceof AgedSpec a && a.geometry().layout() == 1
            ? 3
            : spec.kind() == FilterSpec.Kind.AGED ? 4 : 2);
  }

  /** The newest header layout version this serializer's snapshot declares. */
  public int layoutVersion() {
    return layoutVersion;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<FilterHeader> duplicate() {
    return this;
  }

  /**
   * A minimal empty header (Flink asks for an instance to reuse; it is overwritten on deserialize).
   */
  @Override
  public FilterHeader createInstance() {
    return new FilterHeader(
        FilterHeader.FORMAT_VERSION,
        UrlMapping.seedOnly(0),
        FilterSpec.scalable(0.01, 1, 2, 0.5, PageStore.PAGE_BYTES),
        null);
  }

  @Override
  public FilterHeader copy(FilterHeader from) {
    return from.copy();
  }

  @Override
  public FilterHeader copy(FilterHeader from, FilterHeader reuse) {
    return from.copy();
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(FilterHeader record, DataOutputView target) throws IOException {
    FilterHeaderCodec.write(record, target);
  }

  @Override
  public FilterHeader deserialize(DataInputView source) throws IOException {
    return FilterHeaderCodec.read(source);
  }

  @Override
  public FilterHeader deserialize(FilterHeader reuse, DataInputView source) throws IOException {
    return FilterHeaderCodec.read(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    FilterHeaderCodec.write(FilterHeaderCodec.read(source), target);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof FilterHeaderSerializer s && s.layoutVersion == layoutVersion;
  }

  @Override
  public int hashCode() {
    return FilterHeaderSerializer.class.hashCode() * 31 + layoutVersion;
  }

  @Override
  public TypeSerializerSnapshot<FilterHeader> snapshotConfiguration() {
    return new FilterHeaderSerializerSnapshot(layoutVersion);
  }

  /** Java-serialized by a build before the layout field: that one declared the newest. */
  private Object readResolve() {
    return layoutVersion == 0 ? INSTANCE : this;
  }
}
