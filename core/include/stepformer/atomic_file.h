// Whole-file I/O for checkpoints and exports. Writes are atomic: a reader (or a
// crash mid-save) sees either the previous file or the complete new one, never
// a torn mixture, so an interrupted save cannot destroy the last good checkpoint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stepformer {

// Writes `size` bytes to a temporary file beside `path` (path + ".tmp-<pid>-<random>"),
// fsyncs it, then renames it over `path` and fsyncs the directory. On any failure the
// temporary file is removed, an existing file at `path` is left untouched, and a
// std::runtime_error (a stepformer::Error, message.h) naming `path` and the OS reason is thrown.
// A process killed mid-save cannot remove its temporary file: the next save of `path` removes
// the ones whose process is gone.
void write_file_atomic(const std::string& path, const void* data, size_t size);

// Tests: how many temporary files of `path` lie beside it now.
size_t stale_temp_count_for_testing(const std::string& path);

// Test hook simulating an interrupted save: the next write_file_atomic call writes
// only `fail_after_bytes` bytes of its temporary file and then fails as if the disk
// had filled. The hook disarms itself after firing once; -1 disarms it explicitly.
void set_atomic_write_fault_for_testing(int fail_after_bytes);

// Reads a whole file. Throws std::runtime_error naming `path` and the OS reason
// (missing file, permission denied, path is a directory, ...).
std::vector<uint8_t> read_file_bytes(const std::string& path);

}  // namespace stepformer
