package org.paimonrs.oracle;

import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.table.FileStoreTable;

import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code table-op TABLE_PATH OP ARGS...}: one tag, branch, rollback or consumer operation done by
 * Java's own {@code Table} API, so tests can compare the files it leaves with ours.
 */
final class TableOps {

    private TableOps() {}

    static void run(String[] args, PrintStream out) {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: table-op TABLE_PATH OP ARGS...");
        }
        FileStoreTable t = Commands.open(args[0]);
        String op = args[1];
        switch (op) {
            case "create-tag":
                if (args.length > 3) {
                    t.createTag(args[2], Long.parseLong(args[3]));
                } else {
                    t.createTag(args[2]);
                }
                break;
            case "delete-tag":
                t.deleteTag(args[2]);
                break;
            case "rename-tag":
                t.renameTag(args[2], args[3]);
                break;
            case "create-branch":
                if (args.length > 3) {
                    t.createBranch(args[2], args[3]);
                } else {
                    t.createBranch(args[2]);
                }
                break;
            case "delete-branch":
                t.deleteBranch(args[2]);
                break;
            case "fast-forward":
                t.fastForward(args[2]);
                break;
            case "rollback-to":
                if (args[2].chars().allMatch(Character::isDigit)) {
                    t.rollbackTo(Long.parseLong(args[2]));
                } else {
                    t.rollbackTo(args[2]);
                }
                break;
            case "reset-consumer":
                // reset-consumer ID [NEXT_SNAPSHOT]: Java's ConsumerManager writes the consumer,
                // or deletes it without a snapshot.
                {
                    ConsumerManager consumers = new ConsumerManager(t.fileIO(), t.location());
                    if (args.length > 3) {
                        consumers.resetConsumer(
                                args[2], new Consumer(Long.parseLong(args[3])));
                    } else {
                        consumers.deleteConsumer(args[2]);
                    }
                }
                break;
            case "consumers":
                try {
                    Map<String, Long> m =
                            new TreeMap<>(new ConsumerManager(t.fileIO(), t.location()).consumers());
                    m.forEach((k, v) -> out.println(k + "=" + v));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return;
            default:
                throw new IllegalArgumentException("unknown table-op: " + op);
        }
        out.println("ok");
    }
}
