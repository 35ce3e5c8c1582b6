//===- Npy.h - minimal .npy I/O for the benchmark peers ---------*- C++ -*-===//
//
// Just enough of the .npy format (little-endian, C order, f32/f64) for the
// hand-written peers; Kiln's own reader lives in dialect/interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_BENCH_PEERS_NPY_H
#define KILN_BENCH_PEERS_NPY_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

template <typename T> struct Array {
  std::vector<int64_t> shape;
  std::vector<T> data;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

template <typename T> const char *dtypeOf();
template <> inline const char *dtypeOf<float>() { return "<f4"; }
template <> inline const char *dtypeOf<double>() { return "<f8"; }

template <typename T> Array<T> readNpy(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw std::runtime_error(path + ": cannot open");
  char magic[8];
  if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(path + ": not a .npy file");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    uint16_t len16;
    if (std::fread(&len16, 2, 1, f) != 1)
      throw std::runtime_error(path + ": truncated header");
    headerLen = len16;
  } else if (std::fread(&headerLen, 4, 1, f) != 1) {
    throw std::runtime_error(path + ": truncated header");
  }
  std::string header(headerLen, '\0');
  if (std::fread(header.data(), 1, headerLen, f) != headerLen)
    throw std::runtime_error(path + ": truncated header");
  if (header.find(dtypeOf<T>()) == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(path + ": expected C-order " + dtypeOf<T>());
  Array<T> a;
  size_t open = header.find('(', header.find("'shape'"));
  size_t close = header.find(')', open);
  std::string dims = header.substr(open + 1, close - open - 1);
  for (size_t pos = 0; pos < dims.size();) {
    size_t comma = dims.find(',', pos);
    std::string tok = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (tok.find_first_of("0123456789") != std::string::npos)
      a.shape.push_back(std::stoll(tok));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  a.data.resize(a.size());
  if (std::fread(a.data.data(), sizeof(T), a.data.size(), f) != a.data.size())
    throw std::runtime_error(path + ": truncated data");
  std::fclose(f);
  return a;
}

template <typename T> void writeNpy(const std::string &path, const Array<T> &a) {
  std::string dims;
  for (int64_t d : a.shape)
    dims += std::to_string(d) + ", ";
  if (a.shape.size() > 1)
    dims.resize(dims.size() - 2);
  std::string header = std::string("{'descr': '") + dtypeOf<T>() +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw std::runtime_error(path + ": cannot write");
  uint16_t len = header.size();
  std::fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  std::fwrite(&len, 2, 1, f);
  std::fwrite(header.data(), 1, header.size(), f);
  std::fwrite(a.data.data(), sizeof(T), a.data.size(), f);
  std::fclose(f);
}

} // namespace bench

#endif // KILN_BENCH_PEERS_NPY_H
