package io.stallscope.analyzer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.Deflater;

/**
 * Writes a gzip file of a few MB that inflates to GBs of zeros, in well under a second: one MiB of zeros is deflated
 * once with a full flush (which empties the window, so the piece stands alone) and the piece is repeated. Its
 * trailer's CRC is not that of the data: a reader that gets that far has already inflated everything.
 */
public final class GzipBomb {
    private GzipBomb() {
    }

    /**
     * A gzip file of about {@code gzipBytes} bytes; with {@code jfrMagic} the inflated data starts with "FLR\0", so
     * only a cap on the output stops it, not a look at the first bytes.
     */
    public static Path write(Path file, long gzipBytes, boolean jfrMagic) throws IOException {
        byte[] zeros = new byte[1 << 20];
        byte[] piece = deflated(zeros);
        byte[] first = piece;
        if (jfrMagic) {
            byte[] head = zeros.clone();
            head[0] = 'F';
            head[1] = 'L';
            head[2] = 'R';
            first = deflated(head);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
            out.write(first);
            long pieces = 1;
            for (long written = first.length; written < gzipBytes; written += piece.length) {
                out.write(piece);
                pieces++;
            }
            Deflater end = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
            end.finish();
            byte[] last = new byte[64];
            out.write(last, 0, end.deflate(last));
            end.end();
            long size = pieces << 20;
            out.write(new byte[] {0, 0, 0, 0, (byte) size, (byte) (size >> 8), (byte) (size >> 16), (byte) (size >> 24)});
        }
        return file;
    }

    private static byte[] deflated(byte[] data) {
        Deflater d = new Deflater(Deflater.BEST_COMPRESSION, true);
        d.setInput(data);
        byte[] out = new byte[64 << 10];
        int n = 0;
        while (true) {
            int k = d.deflate(out, n, out.length - n, Deflater.FULL_FLUSH);
            n += k;
            if (n < out.length) break;
            out = Arrays.copyOf(out, out.length * 2);
        }
        d.end();
        return Arrays.copyOf(out, n);
    }
}
