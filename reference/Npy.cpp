//===- Npy.cpp - .npy files for the interpreter and kiln-run --------------===//
#include "reference/Npy.h"

#include "dialect/LaxDialect.h"
#include "support/InputFile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace kiln::interp;

namespace {

/// The .npy descr of an element type, or empty.
std::string descrOf(Type t) {
  if (t.isF16()) return "<f2";
  if (t.isBF16()) return "<V2"; // as ml_dtypes' bfloat16 saves: raw 2-byte records
  if (t.isF32()) return "<f4";
  if (t.isF64()) return "<f8";
  if (t.isInteger(1)) return "|b1";
  auto integer = dyn_cast<IntegerType>(t);
  if (!integer || integer.isSigned() || !llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth()))
    return "";
  unsigned bytes = integer.getWidth() / 8;
  return std::string(bytes == 1 ? "|" : "<") + (integer.isUnsigned() ? "u" : "i") +
         char('0' + bytes);
}

Type typeOf(StringRef descr, MLIRContext *ctx) {
  Builder b(ctx);
  if (descr == "<f2") return b.getF16Type();
  // ml_dtypes' bfloat16 has no type code of its own: np.save writes it as
  // '<V2' (void, 2 bytes), and np.load(...).view(ml_dtypes.bfloat16) reads it.
  if (descr == "<V2" || descr == "|V2") return b.getBF16Type();
  if (descr == "<f4") return b.getF32Type();
  if (descr == "<f8") return b.getF64Type();
  if (descr == "|b1") return b.getI1Type();
  // Integers: |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8.
  if (descr.size() == 3 && (descr[1] == 'i' || descr[1] == 'u') &&
      StringRef("1248").contains(descr[2]) &&
      (descr[0] == '<' || (descr[2] == '1' && (descr[0] == '|' || descr[0] == '=')))) {
    unsigned width = 8 * (descr[2] - '0');
    return descr[1] == 'i' ? Type(b.getIntegerType(width))
                           : Type(IntegerType::get(ctx, width, IntegerType::Unsigned));
  }
  return {};
}

/// The value of `key` in the header dict: the text after "'key':" up to the
/// next top-level ',' or '}'.
std::optional<StringRef> headerValue(StringRef header, StringRef key) {
  size_t pos = header.find(("'" + key + "'").str());
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(pos + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    return close == StringRef::npos ? std::nullopt : std::optional(rest.take_front(close + 1));
  }
  size_t end = rest.find_first_of(",}");
  return rest.take_front(end).trim();
}

} // namespace

FailureOr<Tensor> kiln::interp::parseNpy(StringRef bytes, StringRef name, MLIRContext *ctx,
                                         std::string &error) {
  auto fail = [&](const Twine &why) -> FailureOr<Tensor> {
    error = (name + ": " + why).str();
    return failure();
  };
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return fail("not a .npy file (bad magic string)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = uint32_t(uint8_t(bytes[8])) | (uint32_t(uint8_t(bytes[9])) << 8) |
                (uint32_t(uint8_t(bytes[10])) << 16) | (uint32_t(uint8_t(bytes[11])) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + Twine(int(major)));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated header");
  StringRef header = bytes.substr(headerStart, headerLen);
  std::optional<StringRef> descr = headerValue(header, "descr");
  std::optional<StringRef> fortran = headerValue(header, "fortran_order");
  std::optional<StringRef> shapeText = headerValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return fail("malformed header (expected 'descr', 'fortran_order' and 'shape')");
  if (*fortran != "False" && *fortran != "True")
    return fail("malformed header ('fortran_order' must be True or False, got " + *fortran + ")");
  // numpy writes a Fortran-contiguous array (a transposed one, for
  // instance) in column-major order: the first index varies fastest.
  bool columnMajor = *fortran == "True";
  StringRef d = descr->trim("'\"");
  Type element = typeOf(d, ctx);
  if (!element)
    return fail("unsupported dtype '" + d +
                "' (expected <f2, <f4, <f8, <V2 (bfloat16), |b1, |i1, |u1, <i2, <u2, <i4, <u4, <i8 or <u8)");
  SmallVector<int64_t> shape;
  SmallVector<StringRef> dims;
  shapeText->trim("()").split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef dim : dims) {
    int64_t n;
    if (dim.trim().empty())
      continue; // "(4, )"
    if (dim.trim().getAsInteger(10, n) || n < 0)
      return fail("malformed shape " + *shapeText);
    shape.push_back(n);
  }
  unsigned width = d == "|b1" ? 1 : d.back() - '0';
  // The byte count is checked before anything is allocated, and without
  // wrapping: a header may claim (2^62, 4) elements and carry no data.
  int64_t numBytes = width;
  for (int64_t n : shape)
    if (llvm::MulOverflow(numBytes, n, numBytes))
      return fail("shape " + *shapeText + " has too many elements (over 2^63 bytes of data)");
  StringRef data = bytes.drop_front(headerStart + headerLen);
  if (data.size() != uint64_t(numBytes))
    return fail("expected " + Twine(numBytes) + " bytes of data for shape " + *shapeText +
                ", found " + Twine(data.size()));
  Tensor t(RankedTensorType::get(shape, element));
  const char *p = data.data();
  // The row-major position of the file's element k, whose index `counter`
  // is advanced first dimension first (column-major files only).
  SmallVector<int64_t> strides(shape.size(), 1), counter(shape.size(), 0);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  int64_t position = 0;
  auto advance = [&] {
    for (size_t d = 0; d < shape.size(); ++d) {
      position += strides[d];
      if (++counter[d] < shape[d])
        return;
      position -= strides[d] * shape[d];
      counter[d] = 0;
    }
  };
  for (int64_t k = 0; k < t.size(); ++k, p += width) {
    int64_t i = columnMajor ? position : k;
    if (columnMajor)
      advance();
    if (d == "<f4") { float v; std::memcpy(&v, p, 4); t.setFloat(i, v); }
    else if (d == "<f8") { double v; std::memcpy(&v, p, 8); t.setFloat(i, v); }
    else if (d == "<f2") {
      uint16_t bits; std::memcpy(&bits, p, 2);
      t.setFloat(i, llvm::APFloat(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits)).convertToDouble());
    }
    else if (element.isBF16()) {
      uint16_t bits; std::memcpy(&bits, p, 2);
      t.setFloat(i, llvm::APFloat(llvm::APFloat::BFloat(), llvm::APInt(16, bits)).convertToDouble());
    }
    else if (d == "|b1") t.setInt(i, *p != 0);
    else { uint64_t v = 0; std::memcpy(&v, p, width); t.setInt(i, int64_t(v)); } // setInt wraps
  }
  return t;
}

FailureOr<Tensor> kiln::interp::readNpy(StringRef path, MLIRContext *ctx, std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> file = support::readInputFile(
      path, error, /*allowStdin=*/false, uint64_t(lax::kMaxTensorBytes), /*isText=*/false);
  if (!file)
    return failure();
  return parseNpy(file->getBuffer(), path, ctx, error);
}

std::string kiln::interp::serializeNpy(const Tensor &t) {
  std::string descr = descrOf(t.getElementType());
  // As numpy writes it: "()", "(4,)", "(2, 3)".
  std::string shape = "(";
  for (auto [i, d] : llvm::enumerate(t.shape()))
    shape += (i ? ", " : "") + std::to_string(d);
  shape += t.rank() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  StringRef d(descr);
  for (int64_t i = 0; i < t.size(); ++i) {
    char buf[8];
    unsigned width = 0;
    if (d == "<f4") { float v = float(t.getFloat(i)); std::memcpy(buf, &v, 4); width = 4; }
    else if (d == "<f8") { double v = t.getFloat(i); std::memcpy(buf, &v, 8); width = 8; }
    else if (d == "<f2" || d == "<V2") {
      llvm::APFloat f(t.getFloat(i));
      bool lost;
      f.convert(d == "<f2" ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = f.bitcastToAPInt().getZExtValue();
      std::memcpy(buf, &bits, 2);
      width = 2;
    }
    else { uint64_t v = uint64_t(t.getInt(i)); width = d == "|b1" ? 1 : d.back() - '0'; std::memcpy(buf, &v, width); }
    out.append(buf, width);
  }
  return out;
}

LogicalResult kiln::interp::writeNpy(StringRef path, const Tensor &t, std::string &error) {
  if (descrOf(t.getElementType()).empty()) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t.getElementType();
    error = (path + ": element type " + s + " has no .npy dtype").str();
    return failure();
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = (path + ": cannot write: " + ec.message()).str();
    return failure();
  }
  os << serializeNpy(t);
  return success();
}
