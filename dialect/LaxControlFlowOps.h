//===- LaxControlFlowOps.h - lax control flow operations ----------*- C++ -*-===//
#ifndef KILN_DIALECT_LAXCONTROLFLOWOPS_H
#define KILN_DIALECT_LAXCONTROLFLOWOPS_H

#include "dialect/LaxOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#define GET_OP_CLASSES
#include "dialect/LaxControlFlowOps.h.inc"

#endif // KILN_DIALECT_LAXCONTROLFLOWOPS_H
