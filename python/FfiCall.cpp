//===- FfiCall.cpp - Kiln-compiled functions as XLA FFI custom calls -----===//
//
// The handler behind kiln.kernel (python/kiln/_kernel.py): XLA calls it from
// inside a jax.jit program with the kernel's operands and result buffers
// (row-major, on the host) and the address of the CompiledFunction as the
// `executable` attribute; the handler runs the compiled code on those
// buffers, with no copy. The CompiledFunction lives as long as the process
// (kiln.kernel keeps every one it makes), so a cached XLA executable never
// calls a freed one.
//
//===----------------------------------------------------------------------===//

#include "python/CompiledFunction.h"

#include "xla/ffi/api/ffi.h"

#include "llvm/ADT/SmallVector.h"

namespace ffi = xla::ffi;

namespace {

ffi::Error kilnCallImpl(ffi::RemainingArgs args, ffi::RemainingRets rets, int64_t executable) {
  // Only a handle kiln.kernel gave out, of a live function: a forged or
  // stale address had been called.
  const kiln::python::CompiledFunction *fn =
      kiln::python::CompiledFunction::fromHandle(executable);
  if (!fn)
    return ffi::Error::InvalidArgument("kiln_call: 'executable' is not a live Kiln function");
  if (args.size() != fn->numFreeInputs() || rets.size() != fn->executable().outputs().size())
    return ffi::Error::InvalidArgument("kiln_call: operand or result count differs from the "
                                       "compiled function's");
  // Every buffer must hold what the compiled code reads or writes there.
  auto sizeFits = [](size_t bytes, const kiln::TensorSpec &spec) {
    return bytes == size_t(spec.numBytes());
  };
  llvm::SmallVector<void *, 16> in, out;
  for (size_t i = 0; i < args.size(); ++i) {
    ffi::ErrorOr<ffi::AnyBuffer> b = args.get<ffi::AnyBuffer>(i);
    if (!b.has_value())
      return b.error();
    if (!sizeFits(b->size_bytes(), fn->freeInput(i)))
      return ffi::Error::InvalidArgument("kiln_call: operand " + std::to_string(i) +
                                         " has another size than the compiled function's");
    in.push_back(b->untyped_data());
  }
  for (size_t i = 0; i < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> b = rets.get<ffi::AnyBuffer>(i);
    if (!b.has_value())
      return b.error();
    if (!sizeFits((*b)->size_bytes(), fn->executable().outputs()[i]))
      return ffi::Error::InvalidArgument("kiln_call: result " + std::to_string(i) +
                                         " has another size than the compiled function's");
    out.push_back((*b)->untyped_data());
  }
  std::string error;
  if (!fn->callInto(in.data(), out.data(), &error))
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, "kiln_call: " + error);
  return ffi::Error::Success();
}

} // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(KilnFfiCall, kilnCallImpl,
                              ffi::Ffi::Bind()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("executable"));

namespace kiln::python {
void bindFfiCall(nb::module_ &m) {
  m.def(
      "ffi_handler",
      [] {
        return nb::steal(PyCapsule_New(reinterpret_cast<void *>(&KilnFfiCall), nullptr, nullptr));
      },
      "The XLA FFI handler of kiln.kernel (a PyCapsule for jax.ffi.register_ffi_target)");
}
} // namespace kiln::python
