// Opens a key-value store through an installed linebloom::kvstore, writes a
// key, reopens the store and reads it back.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "linebloom/kvstore/kv_store.h"

int main() {
  using linebloom::kvstore::KvStore;
  char dir_template[] = "/tmp/linebloom_consumer_XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) return 1;
  const std::string dir = std::string(dir_template) + "/store";
  int rc = 0;
  {
    std::unique_ptr<KvStore> store;
    if (!KvStore::Open(dir, linebloom::kvstore::Options(), &store).ok()) rc = 2;
    if (rc == 0 && !store->Put("installed", "yes").ok()) rc = 3;
    if (rc == 0 && !store->Close().ok()) rc = 4;
  }
  if (rc == 0) {
    std::unique_ptr<KvStore> store;
    std::string value;
    if (!KvStore::Open(dir, linebloom::kvstore::Options(), &store).ok()) rc = 5;
    if (rc == 0 && (!store->Get("installed", &value).ok() || value != "yes")) rc = 6;
  }
  std::filesystem::remove_all(dir_template);
  if (rc == 0) std::puts("kvstore consumer: ok");
  return rc;
}
