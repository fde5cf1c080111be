package io.urldedup.jobbench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A PNG line chart with linear axes, drawn with java.awt (headless): the benchmarks need no
 * plotting package on the machine. Series are drawn in the order added, each in its own color.
 */
final class LinePlot {

  private static final int W = 900;
  private static final int H = 500;
  private static final int LEFT = 90;
  private static final int RIGHT = 30;
  private static final int TOP = 40;
  private static final int BOTTOM = 60;
  private static final Color[] COLORS = {
    new Color(0x1f77b4),
    new Color(0xd62728),
    new Color(0x2ca02c),
    new Color(0xff7f0e),
    new Color(0x9467bd)
  };

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final Map<String, List<double[]>> series = new LinkedHashMap<>();

  LinePlot(String title, String xLabel, String yLabel) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
  }

  LinePlot add(String name, List<double[]> points) {
    series.put(name, new ArrayList<>(points));
    return this;
  }

  void write(Path png) throws IOException {
    double maxX = 0;
    double maxY = 0;
    for (List<double[]> s : series.values()) {
      for (double[] p : s) {
        maxX = Math.max(maxX, p[0]);
        maxY = Math.max(maxY, p[1]);
      }
    }
    maxX = nice(maxX);
    maxY = nice(maxY);
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    for (int i = 0; i <= 5; i++) {
      int y = TOP + ph - ph * i / 5;
      int x = LEFT + pw * i / 5;
      g.setColor(new Color(0xe0e0e0));
      g.drawLine(LEFT, y, LEFT + pw, y);
      g.drawLine(x, TOP, x, TOP + ph);
      g.setColor(Color.DARK_GRAY);
      String yl = label(maxY * i / 5);
      g.drawString(yl, LEFT - 8 - g.getFontMetrics().stringWidth(yl), y + 4);
      String xl = label(maxX * i / 5);
      g.drawString(xl, x - g.getFontMetrics().stringWidth(xl) / 2, TOP + ph + 18);
    }
    g.setColor(Color.BLACK);
    g.drawRect(LEFT, TOP, pw, ph);
    g.drawString(xLabel, LEFT + pw / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, H - 18);
    g.rotate(-Math.PI / 2);
    g.drawString(yLabel, -(TOP + ph / 2) - g.getFontMetrics().stringWidth(yLabel) / 2, 16);
    g.rotate(Math.PI / 2);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(title, LEFT, TOP - 14);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.setStroke(new BasicStroke(1.6f));
    int k = 0;
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      Color c = COLORS[k % COLORS.length];
      g.setColor(c);
      int px = -1;
      int py = -1;
      for (double[] p : e.getValue()) {
        int x = LEFT + (int) Math.round(p[0] / maxX * pw);
        int y = TOP + ph - (int) Math.round(p[1] / maxY * ph);
        if (px >= 0) {
          g.drawLine(px, py, x, y);
        }
        g.fillOval(x - 2, y - 2, 4, 4);
        px = x;
        py = y;
      }
      g.fillRect(LEFT + pw - 300, TOP + 10 + 18 * k, 14, 4);
      g.drawString(e.getKey(), LEFT + pw - 280, TOP + 16 + 18 * k);
      k++;
    }
    g.dispose();
    ImageIO.write(img, "png", png.toFile());
  }

  /** The next of 1, 2, 5 x 10^k at or above {@code v}: round axis ends. */
  private static double nice(double v) {
    if (v <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String label(double v) {
    double a = Math.abs(v);
    if (a >= 1e9) {
      return String.format(Locale.ROOT, "%.3gG", v / 1e9);
    }
    if (a >= 1e6) {
      return String.format(Locale.ROOT, "%.3gM", v / 1e6);
    }
    if (a >= 1e3) {
      return String.format(Locale.ROOT, "%.3gk", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }
}
