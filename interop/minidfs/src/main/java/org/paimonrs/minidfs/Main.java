package org.paimonrs.minidfs;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Starts a one-node HDFS on loopback, prints its URL ({@code hdfs://127.0.0.1:PORT}) as the
 * first line of stdout, and runs until stdin closes; then it stops and deletes its storage.
 *
 * <p>Usage: {@code java -cp ... org.paimonrs.minidfs.Main [PORT]} (0 or nothing: a free port).
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        Path base = Files.createTempDirectory("paimon-minidfs");
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
        // One data node: every block has one replica, and small blocks keep the test's
        // multi-block files small.
        conf.setInt("dfs.replication", 1);
        conf.setLong("dfs.blocksize", 1L << 20);
        conf.setLong("dfs.namenode.fs-limits.min-block-size", 1L << 16);
        // A file's next block may be allocated while its previous one is committed but not yet
        // reported by the data node. Java's client retries addBlock on NotReplicatedYet; the
        // hdfs-native client does not, and with 1 MiB blocks written at memory speed the race
        // is common here (2 of 12 runs lost it; 0 of 10 with 1 allowed). Two committed blocks are
        // allowed here; production name nodes keep the default (0).
        conf.setInt("dfs.namenode.file.close.num-committed-allowed", 2);
        MiniDFSCluster cluster =
                new MiniDFSCluster.Builder(conf)
                        .numDataNodes(1)
                        .nameNodePort(port)
                        .format(true)
                        .build();
        try {
            cluster.waitActive();
            System.out.println("hdfs://127.0.0.1:" + cluster.getNameNodePort());
            System.out.flush();
            while (System.in.read() != -1) {
                // Runs until the caller closes stdin (or is gone).
            }
        } finally {
            cluster.shutdown(true);
        }
    }
}
