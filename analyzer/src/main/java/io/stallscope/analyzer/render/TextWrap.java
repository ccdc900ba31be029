package io.stallscope.analyzer.render;

import java.util.ArrayList;
import java.util.List;

/**
 * Folds a long report line for a terminal: at a stack's " <- " first, else after ", " or "; ", else at a space;
 * continuation lines are indented under the first. A frame is never cut in two: a single word longer than the
 * width stays on a line of its own.
 */
final class TextWrap {
    /** Columns of a report line: a terminal's 80 would fold nearly every stack, a wide one shows 100 well. */
    static final int WIDTH = 100;

    private TextWrap() {
    }

    /** {@code first} starts the first line, {@code indent} the others; the text is folded to {@code width}. */
    static List<String> wrap(String first, String indent, String text, int width) {
        List<String> out = new ArrayList<>();
        String prefix = first;
        String rest = text;
        while (prefix.length() + rest.length() > width) {
            int room = width - prefix.length();
            int cut = breakAt(rest, room);
            if (cut <= 0) break;
            out.add(prefix + rest.substring(0, cut).stripTrailing());
            rest = rest.substring(cut).stripLeading();
            prefix = indent;
        }
        out.add(prefix + rest);
        return out;
    }

    /** Where to end a line of at most {@code room} characters: the best break before it, or the first after it. */
    private static int breakAt(String s, int room) {
        int limit = Math.min(room, s.length());
        // The latest break between frames or list items; one near the start would leave a short line, and then a
        // plain space further on is better.
        int best = -1;
        for (String sep : new String[] {" <- ", "; ", ", "}) {
            int i = s.lastIndexOf(sep, limit - sep.length());
            if (i >= 0) best = Math.max(best, sep.equals(" <- ") ? i : i + sep.length() - 1);
        }
        if (best > room / 2) return best;
        int space = s.lastIndexOf(' ', limit);
        if (space > 0) return space;
        // One long word: keep it whole and break after it.
        int next = s.indexOf(' ', limit);
        return next < 0 ? -1 : next;
    }
}
