package org.paimonrs.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Minimal command-line parsing: {@code --flag}, {@code --key value} (repeatable) and positionals. */
final class Args {

    private static final Set<String> BOOLEAN_FLAGS = Set.of("--with-kind", "--sort", "--no-manifest-merge", "--minor", "--write-only");

    final List<String> positional = new ArrayList<>();
    final Map<String, List<String>> options = new LinkedHashMap<>();

    static Args parse(String[] argv) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String s = argv[i];
            if (s.startsWith("--")) {
                String key = s;
                String value;
                int eq = s.indexOf('=');
                if (eq > 0) {
                    key = s.substring(0, eq);
                    value = s.substring(eq + 1);
                } else if (BOOLEAN_FLAGS.contains(s)) {
                    value = "true";
                } else {
                    if (i + 1 >= argv.length) {
                        throw new IllegalArgumentException("missing value for " + s);
                    }
                    value = argv[++i];
                }
                a.options.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            } else {
                a.positional.add(s);
            }
        }
        return a;
    }

    String positional(int i) {
        if (i >= positional.size()) {
            throw new IllegalArgumentException("missing positional argument #" + (i + 1));
        }
        return positional.get(i);
    }

    String get(String key) {
        List<String> v = options.get(key);
        return v == null ? null : v.get(v.size() - 1);
    }

    List<String> getAll(String key) {
        List<String> v = options.get(key);
        return v == null ? List.of() : v;
    }

    boolean has(String key) {
        return options.containsKey(key);
    }

    long getLong(String key, long dflt) {
        String v = get(key);
        return v == null ? dflt : Long.parseLong(v);
    }
}
