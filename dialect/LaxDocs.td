//===- LaxDocs.td - every lax op, for the op reference ---*- tablegen -*-===//
//
// docs/lax-ops.md is generated from this file (-gen-op-doc).
//
//===----------------------------------------------------------------------===//
include "dialect/LaxOps.td"
include "dialect/LaxControlFlowOps.td"
include "dialect/LaxIndexingOps.td"
