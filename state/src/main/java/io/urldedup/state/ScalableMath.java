package io.urldedup.state;

/**
 * Sizing of the scalable Bloom filter (Almeida et al. 2007): slice i holds n0 s^i elements at error
 * eps (1 - r) r^i, so the errors sum to at most eps; each slice is a blocked Bloom filter sized by
 * {@link FilterMath}. No state, no I/O.
 */
public final class ScalableMath {

  private ScalableMath() {}

  /**
   * Error of slice i: eps0 r^i with eps0 = eps (1 - r), so that sum_i eps0 r^i <= eps (Almeida et
   * al. 2007).
   */
  public static double sliceFpr(double eps, double r, int i) {
    return eps * (1 - r) * Math.pow(r, i);
  }

  /** Capacity of slice i: n0 s^i (saturating at Long.MAX_VALUE). */
  public static long sliceCapacity(long n0, int s, int i) {
    double c = n0 * Math.pow(s, i);
    return c >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) c;
  }

  /** Bytes (whole pages) of slice i. */
  public static long sliceBytes(double eps, long n0, int s, double r, int i) {
    return FilterMath.blockedPages(sliceCapacity(n0, s, i), sliceFpr(eps, r, i))
        * PageStore.PAGE_BYTES;
  }

  /** What a scalable filter holding n elements looks like, with the memory cap applied. */
  public record Usage(int slices, long bytes, boolean saturated, double fprBound) {}

  /**
   * Slices and bytes a scalable filter needs for n distinct elements: slices fill in order, a new
   * slice starts when the newest reaches its capacity unless it would exceed {@code maxMemory};
   * then the last slice takes the overfill and the FPR bound becomes the model of the overfilled
   * slices.
   */
  public static Usage usage(ScalableSpec spec, long n) {
    double eps = spec.fpr();
    double r = spec.tightening();
    long remaining = n;
    long bytes = 0;
    int i = 0;
    double bound = 0;
    while (true) {
      long cap = sliceCapacity(spec.capacity(), spec.growth(), i);
      long bytesOfSlice = sliceBytes(eps, spec.capacity(), spec.growth(), r, i);
      bytes += bytesOfSlice;
      if (remaining <= cap) {
        bound += sliceFpr(eps, r, i);
        return new Usage(i + 1, bytes, false, Math.min(1, bound));
      }
      long nextBytes = sliceBytes(eps, spec.capacity(), spec.growth(), r, i + 1);
      if (bytes + nextBytes > spec.maxMemoryBytes() || i + 1 >= FilterHeader.MAX_SLICES) {
        // cap: everything left goes into slice i
        long blocks = FilterMath.blockedBlocks(cap, sliceFpr(eps, r, i));
        int k = FilterMath.blockedSizing(sliceFpr(eps, r, i)).k();
        double overfilled = FilterMath.blockedFpr(remaining, blocks, k);
        double total = 1 - (1 - bound) * (1 - overfilled);
        return new Usage(i + 1, bytes, true, Math.min(1, total));
      }
      bound += sliceFpr(eps, r, i);
      remaining -= cap;
      i++;
    }
  }
}
