// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// linebloom in RocksJava, through the stock RocksJava API only, against a
// RocksJava whose native library was built with linebloom inside it (make
// ROCKSDB_PLUGINS=linebloom rocksdbjava). One DB, two column families:
//   default      its options from an OPTIONS file (bench/rocksdb/linebloom.OPTIONS,
//                OptionsUtil.loadOptionsFromFile), as Flink or Kafka Streams
//                users can point RocksDB at one;
//   from_string  its options from an option string
//                (ColumnFamilyOptions.getColumnFamilyOptionsFromProps).
// Each gets keys written, flushed and compacted; then every present key must
// be found, no absent key may be, RocksDB's BLOOM_FILTER_USEFUL ticker must
// count the filter rejecting absent keys, and every SST's table properties
// must name linebloom as their filter policy.
//
// usage: java -cp rocksdbjni.jar:. LinebloomRocksJava OPTIONS_FILE DB_DIR

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

public final class LinebloomRocksJava {
  private static final int KEYS = 20000;
  private static int passed = 0;
  private static int failed = 0;

  private static void check(boolean ok, String what) {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      System.err.println("FAIL: " + what);
    }
  }

  // Even numbers are present, odd ones absent: every absent key falls inside
  // the SST's key range, so RocksDB asks its filter.
  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII);
  }

  private static void exercise(RocksDB db, ColumnFamilyHandle cf, Statistics stats)
      throws RocksDBException {
    final String name = new String(cf.getName(), StandardCharsets.US_ASCII);
    for (int i = 0; i < 2 * KEYS; i += 2) db.put(cf, key(i), key(i));
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush, cf);
    }
    db.compactRange(cf);

    final long usefulBefore = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
    int missing = 0;
    int foundAbsent = 0;
    for (int i = 0; i < 2 * KEYS; i += 2) {
      final byte[] value = db.get(cf, key(i));
      if (value == null || !Arrays.equals(value, key(i))) ++missing;
    }
    for (int i = 1; i < 2 * KEYS; i += 2) {
      if (db.get(cf, key(i)) != null) ++foundAbsent;
    }
    final long useful = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL) - usefulBefore;
    System.out.printf("%s: present keys missing %d, absent keys found %d, BLOOM_FILTER_USEFUL %d of %d%n",
        name, missing, foundAbsent, useful, KEYS);
    check(missing == 0, name + ": every present key is found (no false negative)");
    check(foundAbsent == 0, name + ": no absent key is found");
    check(useful > KEYS * 9L / 10, name + ": the filter rejects more than 90% of absent keys");

    final Map<String, TableProperties> tables = db.getPropertiesOfAllTables(cf);
    check(!tables.isEmpty(), name + ": has SST files");
    for (Map.Entry<String, TableProperties> table : tables.entrySet()) {
      final String policy = table.getValue().getFilterPolicyName();
      System.out.printf("%s: %s filter policy name: %s%n", name, table.getKey(), policy);
      check("linebloom".equals(policy), name + ": " + table.getKey() + " names linebloom");
    }
  }

  public static void main(String[] args) throws RocksDBException {
    if (args.length != 2) {
      System.err.println("usage: LinebloomRocksJava OPTIONS_FILE DB_DIR");
      System.exit(2);
    }
    RocksDB.loadLibrary();
    final List<ColumnFamilyDescriptor> families = new ArrayList<>();
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    final Properties props = new Properties();
    props.setProperty("block_based_table_factory", "{filter_policy=linebloom:10}");
    try (ConfigOptions config = new ConfigOptions();
         DBOptions dbOptions = new DBOptions();
         Statistics stats = new Statistics();
         ColumnFamilyOptions fromString = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(props)) {
      check(fromString != null, "option string naming linebloom parses");
      OptionsUtil.loadOptionsFromFile(config, args[0], dbOptions, families);
      check(families.size() == 1, "the OPTIONS file has the default column family");
      dbOptions.setCreateIfMissing(true).setCreateMissingColumnFamilies(true).setStatistics(stats);
      families.add(new ColumnFamilyDescriptor("from_string".getBytes(StandardCharsets.US_ASCII), fromString));
      try (Options destroyOptions = new Options()) {
        RocksDB.destroyDB(args[1], destroyOptions);
      }
      try (RocksDB db = RocksDB.open(dbOptions, args[1], families, handles)) {
        for (ColumnFamilyHandle handle : handles) exercise(db, handle, stats);
        for (ColumnFamilyHandle handle : handles) handle.close();
      }
      for (ColumnFamilyDescriptor family : families) family.getOptions().close();
    }
    System.out.printf("%d passed, %d failed%n", passed, failed);
    System.exit(failed == 0 ? 0 : 1);
  }
}
