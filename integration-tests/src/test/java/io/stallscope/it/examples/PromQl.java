package io.stallscope.it.examples;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A small PromQL tokenizer that finds what a query asks of the scraped data: the series selectors
 * (metric name and label matchers) and the label names of by/without/on/ignoring/group_* clauses.
 * It does not evaluate or fully validate a query; promtool does that (PromtoolTest).
 */
final class PromQl {
    record Matcher(String label, String op, String value) {
    }

    record Selector(String metric, List<Matcher> matchers) {
    }

    record Query(List<Selector> selectors, Set<String> groupingLabels) {
    }

    private enum Kind { IDENT, STRING, NUMBER, PUNCT }

    private record Token(Kind kind, String text) {
    }

    private static final Set<String> LABEL_LIST_KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "offset", "bool", "inf", "nan", "atan2",
        "by", "without", "on", "ignoring", "group_left", "group_right");

    private static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
        "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");

    private PromQl() {
    }

    static Query parse(String expr) {
        List<Token> tokens = tokenize(expr);
        List<Selector> selectors = new ArrayList<>();
        Set<String> grouping = new LinkedHashSet<>();
        int i = 0;
        while (i < tokens.size()) {
            Token t = tokens.get(i);
            if (t.kind == Kind.IDENT) {
                String word = t.text.toLowerCase();
                String next = i + 1 < tokens.size() ? tokens.get(i + 1).text : "";
                boolean call = next.equals("(")
                    || (AGGREGATIONS.contains(word) && (next.equals("by") || next.equals("without"))); // sum by (l) (...)
                if (LABEL_LIST_KEYWORDS.contains(word) && call) {
                    i += 2;
                    while (i < tokens.size() && !tokens.get(i).text.equals(")")) {
                        if (tokens.get(i).kind == Kind.IDENT) {
                            grouping.add(tokens.get(i).text);
                        } else if (!tokens.get(i).text.equals(",")) {
                            throw new IllegalArgumentException("unexpected '" + tokens.get(i).text + "' in label list of: " + expr);
                        }
                        i++;
                    }
                    i++;
                } else if (call || KEYWORDS.contains(word)) {
                    i++; // a function, an aggregation or an operator keyword
                } else if (i + 1 < tokens.size() && tokens.get(i + 1).text.equals("{")) {
                    List<Matcher> matchers = new ArrayList<>();
                    i = matchers(tokens, i + 2, matchers, expr);
                    selectors.add(new Selector(t.text, matchers));
                } else {
                    selectors.add(new Selector(t.text, List.of()));
                    i++;
                }
            } else if (t.text.equals("{")) {
                List<Matcher> matchers = new ArrayList<>();
                i = matchers(tokens, i + 1, matchers, expr);
                String name = matchers.stream().filter(m -> m.label().equals("__name__") && m.op().equals("="))
                    .map(Matcher::value).findFirst().orElse(null);
                selectors.add(new Selector(name, matchers));
            } else if (t.text.equals("[")) {
                while (i < tokens.size() && !tokens.get(i).text.equals("]")) {
                    i++; // a range or subquery: durations only
                }
                i++;
            } else {
                i++;
            }
        }
        return new Query(selectors, grouping);
    }

    /** Reads {@code label op "value"} pairs up to the closing brace; returns the index after it. */
    private static int matchers(List<Token> tokens, int i, List<Matcher> out, String expr) {
        while (i < tokens.size() && !tokens.get(i).text.equals("}")) {
            if (tokens.get(i).text.equals(",")) {
                i++;
                continue;
            }
            if (i + 2 >= tokens.size() || tokens.get(i).kind != Kind.IDENT || tokens.get(i + 2).kind != Kind.STRING
                || !Set.of("=", "!=", "=~", "!~").contains(tokens.get(i + 1).text)) {
                throw new IllegalArgumentException("bad label matcher at '" + tokens.get(i).text + "' in: " + expr);
            }
            out.add(new Matcher(tokens.get(i).text, tokens.get(i + 1).text, tokens.get(i + 2).text));
            i += 3;
        }
        if (i >= tokens.size()) {
            throw new IllegalArgumentException("unclosed '{' in: " + expr);
        }
        return i + 1;
    }

    private static List<Token> tokenize(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++; // a comment
                }
            } else if (c == '"' || c == '\'' || c == '`') {
                StringBuilder value = new StringBuilder();
                int j = i + 1;
                while (j < s.length() && s.charAt(j) != c) {
                    if (s.charAt(j) == '\\' && c != '`' && j + 1 < s.length()) {
                        j++;
                    }
                    value.append(s.charAt(j++));
                }
                if (j >= s.length()) {
                    throw new IllegalArgumentException("unclosed string in: " + s);
                }
                out.add(new Token(Kind.STRING, value.toString()));
                i = j + 1;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < s.length() && Character.isDigit(s.charAt(i + 1)))) {
                int j = i;
                while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '.')) {
                    j++;
                }
                out.add(new Token(Kind.NUMBER, s.substring(i, j)));
                i = j;
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                int j = i;
                while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == ':')) {
                    j++;
                }
                out.add(new Token(Kind.IDENT, s.substring(i, j)));
                i = j;
            } else {
                String two = i + 1 < s.length() ? s.substring(i, i + 2) : "";
                if (Set.of("=~", "!~", "!=", "==", ">=", "<=").contains(two)) {
                    out.add(new Token(Kind.PUNCT, two));
                    i += 2;
                } else if ("(){}[],=<>+-*/%^@".indexOf(c) >= 0) {
                    out.add(new Token(Kind.PUNCT, String.valueOf(c)));
                    i++;
                } else {
                    throw new IllegalArgumentException("unexpected '" + c + "' in: " + s);
                }
            }
        }
        return out;
    }
}
