package io.varve.http.console;

/**
 * Re-indents JSON text for the message browser, or says it is not JSON. A small validating scanner (objects, arrays,
 * strings, numbers, true/false/null) rather than a parser library: it never builds a tree, so a large document costs
 * one pass and one buffer. Depth is bounded so a hostile value cannot exhaust the stack (there is no recursion).
 */
final class JsonPretty {
    static final int MAX_DEPTH = 256;

    private JsonPretty() {}

    /** The indented text, or null when {@code text} is not one JSON object or array. */
    static String format(String text) {
        String s = text.strip();
        if (s.isEmpty() || (s.charAt(0) != '{' && s.charAt(0) != '[')) {
            return null;
        }
        StringBuilder out = new StringBuilder(s.length() * 2);
        char[] stack = new char[MAX_DEPTH];
        int depth = 0;
        // what may come next: a value, a key (in an object), a ':' , or ',' / a closing bracket
        boolean expectValue = true;
        boolean expectKey = false;
        boolean expectColon = false;
        boolean afterOpen = false;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                i++;
                continue;
            }
            if (depth == 0 && out.length() > 0) {
                return null; // text after the document
            }
            if (expectColon) {
                if (c != ':') {
                    return null;
                }
                out.append(": ");
                expectColon = false;
                expectValue = true;
                i++;
                continue;
            }
            if ((c == '}' || c == ']') && (afterOpen || (!expectValue && !expectKey))) {
                if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) {
                    return null;
                }
                depth--;
                if (!afterOpen) {
                    newline(out, depth);
                }
                out.append(c);
                afterOpen = false;
                expectValue = false;
                expectKey = false;
                i++;
                continue;
            }
            if (c == ',' && !expectValue && !expectKey && depth > 0) {
                out.append(',');
                newline(out, depth);
                if (stack[depth - 1] == '{') {
                    expectKey = true;
                } else {
                    expectValue = true;
                }
                i++;
                continue;
            }
            if (expectKey) {
                if (c != '"') {
                    return null;
                }
                if (afterOpen) {
                    newline(out, depth);
                }
                int end = string(s, i);
                if (end < 0) {
                    return null;
                }
                out.append(s, i, end);
                i = end;
                expectKey = false;
                expectColon = true;
                afterOpen = false;
                continue;
            }
            if (!expectValue) {
                return null;
            }
            if (afterOpen) {
                newline(out, depth);
                afterOpen = false;
            }
            if (c == '{' || c == '[') {
                if (depth == MAX_DEPTH) {
                    return null;
                }
                stack[depth++] = c;
                out.append(c);
                afterOpen = true;
                expectKey = c == '{';
                expectValue = c == '[';
                i++;
                continue;
            }
            int end = c == '"' ? string(s, i) : literal(s, i);
            if (end < 0) {
                return null;
            }
            out.append(s, i, end);
            i = end;
            expectValue = false;
        }
        return depth == 0 && !expectValue && !expectKey && !expectColon ? out.toString() : null;
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n');
        for (int d = 0; d < depth; d++) {
            out.append("  ");
        }
    }

    /** The index after the string starting at {@code start}, or -1. */
    private static int string(String s, int start) {
        int i = start + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == '"') {
                return i + 1;
            } else if (c < 0x20) {
                return -1;
            } else {
                i++;
            }
        }
        return -1;
    }

    /** The index after a number or true/false/null at {@code start}, or -1. */
    private static int literal(String s, int start) {
        for (String word : new String[] {"true", "false", "null"}) {
            if (s.startsWith(word, start)) {
                return start + word.length();
            }
        }
        int i = start;
        if (i < s.length() && s.charAt(i) == '-') {
            i++;
        }
        int digits = i;
        while (i < s.length() && "0123456789.eE+-".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        if (i == digits || !Character.isDigit(s.charAt(digits))) {
            return -1;
        }
        try {
            Double.parseDouble(s.substring(start, i));
        } catch (NumberFormatException e) {
            return -1;
        }
        return i;
    }
}
