// Every verifier message of the lax dialect.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// expected-note @+1 {{prior use here}}
func.func @elementwise_shapes(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{use of value '%b' expects different type than prior uses}}
  %0 = lax.add %a, %b : tensor<4xf32>
  return
}

// -----

func.func @elementwise_mixed(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "lax.add"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @float_only(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = lax.exp %a : tensor<4xi32>
  return
}

// -----

func.func @unsupported_element(%a: tensor<4xi4>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = lax.neg %a : tensor<4xi4>
  return
}

// -----

func.func @integer_pow_negative_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{negative exponent -1 needs a floating-point operand}}
  %0 = lax.integer_pow %a y = -1 : tensor<4xi32>
  return
}

// -----

func.func @compare_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %0 = "lax.compare"(%a, %b) {direction = 0 : i32} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @select_case_types(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{all cases must have one type, got 'tensor<4xf32>' and 'tensor<4xf64>'}}
  %0 = lax.select_n %p, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func @select_which_shape(%p: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'which' must be a scalar or have the cases' shape [4]}}
  %0 = lax.select_n %p, %a, %a : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @select_pred_three(%p: tensor<4xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{an i1 'which' selects among at most 2 cases, got 3}}
  %0 = lax.select_n %p, %a, %a, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = lax.convert_element_type %a : tensor<4xf32> -> tensor<5xf64>
  return
}

// -----

func.func @iota_dimension() {
  // expected-error @+1 {{dimension 2 is out of range: expected 0 <= dimension < 2}}
  %0 = lax.iota dimension = 2 : tensor<2x3xi32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{broadcast_dimensions has 2 entries but the operand has rank 1}}
  %0 = lax.broadcast_in_dim %a shape = [4, 3] dims = [0, 1] : tensor<3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand dimension 0 has size 3 but result dimension 0 has size 4: expected 1 or equal sizes}}
  %0 = lax.broadcast_in_dim %a shape = [4, 3] dims = [0] : tensor<3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_order(%a: tensor<3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{broadcast_dimensions must be increasing, got [1, 0]}}
  %0 = lax.broadcast_in_dim %a shape = [3, 3] dims = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @broadcast_out_of_range(%a: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{broadcast_dimensions entry 2 is out of range: expected 0 <= axis < 2}}
  %0 = lax.broadcast_in_dim %a shape = [4, 3] dims = [2] : tensor<3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_result_type(%a: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<5x3xf32>'}}
  %0 = lax.broadcast_in_dim %a shape = [4, 3] dims = [1] : tensor<3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{operand has 6 elements but the result has 8}}
  %0 = lax.reshape %a : tensor<2x3xf32> -> tensor<8xf32>
  return
}

// -----

func.func @reshape_element(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot change the element type from 'f32' to 'f64'}}
  %0 = lax.reshape %a : tensor<2x3xf32> -> tensor<6xf64>
  return
}

// -----

func.func @transpose_length(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{permutation has 3 entries but the operand has rank 2}}
  %0 = lax.transpose %a permutation = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{permutation has duplicate entry 1}}
  %0 = lax.transpose %a permutation = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{permutation entry 2 is out of range: expected 0 <= axis < 2}}
  %0 = lax.transpose %a permutation = [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @rev_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{dimensions entry 2 is out of range: expected 0 <= axis < 2}}
  %0 = lax.rev %a dims = [2] : tensor<2x3xf32>
  return
}

// -----

func.func @rev_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{dimensions has duplicate entry 0}}
  %0 = lax.rev %a dims = [0, 0] : tensor<2x3xf32>
  return
}

// -----

func.func @slice_rank(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{start, limit and strides need one entry per operand dimension (2)}}
  %0 = lax.slice %a start = [0] limit = [2] strides = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dimension 1: expected 0 <= start (1) <= limit (4) <= size (3)}}
  %0 = lax.slice %a start = [0, 1] limit = [2, 4] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_stride(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{stride 0 in dimension 0 must be positive}}
  %0 = lax.slice %a start = [0, 0] limit = [2, 3] strides = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_slice_count(%a: tensor<2x3xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expected one start index and one slice size per operand dimension (2)}}
  %0 = lax.dynamic_slice %a[%i] sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_slice_size(%a: tensor<2x3xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{slice size 4 of dimension 1 exceeds the operand size 3}}
  %0 = lax.dynamic_slice %a[%i, %i] sizes = [1, 4] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @dynamic_slice_index_type(%a: tensor<2x3xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{operand #1 must be variadic of 0D tensor of}}
  %0 = lax.dynamic_slice %a[%i, %i] sizes = [1, 2] : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @dynamic_update_slice_size(%a: tensor<2x3xf32>, %u: tensor<3x1xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update dimension 0 (3) exceeds the operand's (2)}}
  %0 = lax.dynamic_update_slice %a[%i, %i], %u : (tensor<2x3xf32>, tensor<3x1xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_update_slice_type(%a: tensor<2x3xf32>, %u: tensor<1x1xf64>, %i: tensor<i32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update element type 'f64' differs from the operand's 'f32'}}
  %0 = lax.dynamic_update_slice %a[%i, %i], %u : (tensor<2x3xf32>, tensor<1x1xf64>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamic_update_slice_rank(%a: tensor<2x3xf32>, %u: tensor<3xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expected an update of the operand's rank (2) and one start index per dimension}}
  %0 = lax.dynamic_update_slice %a[%i, %i], %u : (tensor<2x3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concatenate_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dimension 2 is out of range: expected 0 <= dimension < 2}}
  %0 = lax.concatenate %a, %a dim = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concatenate_shapes(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inputs differ in dimension 1 which is not the concatenated dimension 0}}
  %0 = lax.concatenate %a, %b dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concatenate_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inputs must share element type and rank, got 'tensor<2x3xf32>' and 'tensor<2x3xf64>'}}
  %0 = lax.concatenate %a, %b dim = 0 : (tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concatenate_none() {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{concatenate needs at least one input}}
  %0 = "lax.concatenate"() {dimension = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @squeeze_size(%a: tensor<2x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{cannot squeeze dimension 0 of size 2: expected size 1}}
  %0 = lax.squeeze %a dims = [0] : tensor<2x1xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_duplicate(%a: tensor<2x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dimensions has duplicate entry 1}}
  %0 = lax.squeeze %a dims = [1, 1] : tensor<2x1xf32> -> tensor<2xf32>
  return
}

// -----

func.func @expand_dims_range(%a: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dimensions entry 3 is out of range: expected 0 <= axis < 3}}
  %0 = lax.expand_dims %a dims = [0, 3] : tensor<3xf32> -> tensor<1x3x1xf32>
  return
}

// -----

func.func @dot_contracting_count(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{lhs has 1 contracting dimensions but rhs has 0}}
  %0 = lax.dot_general %a, %b contracting = [1] x [] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_contracting_size(%a: tensor<2x3xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{contracting dimensions differ in size: lhs dimension 1 is 3 but rhs dimension 0 is 4}}
  %0 = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x3xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_batch_count(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{lhs has 1 batch dimensions but rhs has 0}}
  %0 = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return
}

// -----

func.func @dot_batch_size(%a: tensor<5x2x3xf32>, %b: tensor<6x3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{batch dimensions differ in size: lhs dimension 0 is 5 but rhs dimension 0 is 6}}
  %0 = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [0] : (tensor<5x2x3xf32>, tensor<6x3x4xf32>) -> tensor<5x2x4xf32>
  return
}

// -----

func.func @dot_duplicate(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{lhs contracting+batch dimensions has duplicate entry 0}}
  %0 = lax.dot_general %a, %b contracting = [0] x [0] batch = [0] x [1] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @dot_range(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{rhs contracting+batch dimensions entry 2 is out of range: expected 0 <= axis < 2}}
  %0 = lax.dot_general %a, %b contracting = [1] x [2] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operands have different element types 'f32' and 'f64'}}
  %0 = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>'}}
  %0 = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reduce_axes(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axes entry 2 is out of range: expected 0 <= axis < 2}}
  %0 = lax.reduce_sum %a axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{axes has duplicate entry 0}}
  %0 = lax.reduce_max %a axes = [0, 0] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @argmax_axes(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expected exactly one axis, got 2}}
  %0 = lax.argmax %a axes = [0, 1] : tensor<2x3xf32> -> tensor<i32>
  return
}

// -----

func.func @argmax_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range: expected 0 <= axis < 2}}
  %0 = lax.argmax %a axes = [2] : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @argmin_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result shape must be the operand's without axis 0, expected 'tensor<3xi32>'}}
  %0 = lax.argmin %a axes = [0] : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @scan_xs_length(%c: tensor<3xf32>, %xs: tensor<5x3xf32>) {
  // expected-error @+1 {{xs #0 has size 5 along its scan axis 0, expected length 4}}
  %0 = lax.scan length = 4 carry(%c) xs(%xs) : (tensor<3xf32>, tensor<5x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_xs_axis(%c: tensor<3xf32>, %xs: tensor<4x3xf32>) {
  // expected-error @+1 {{xs #0 has scan axis 2 out of range for rank 2}}
  %0 = lax.scan length = 4 carry(%c) xs(%xs) {xs_axes = array<i64: 2>} : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_axes_count(%c: tensor<3xf32>, %xs: tensor<4x3xf32>) {
  // expected-error @+1 {{xs_axes has 2 entries but there are 1 xs operands}}
  %0 = lax.scan length = 4 carry(%c) xs(%xs) {xs_axes = array<i64: 0, 0>} : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_carry_result(%c: tensor<3xf32>) {
  // expected-error @+1 {{final carry #0 has type 'tensor<3xf64>' but its initial value has type 'tensor<3xf32>'}}
  %0 = lax.scan length = 4 carry(%c) xs() : (tensor<3xf32>) -> tensor<3xf64> {
  ^bb0(%a: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_ys_length(%c: tensor<3xf32>) {
  // expected-error @+1 {{ys #0 has size 5 along its scan axis 0, expected length 4}}
  %0:2 = lax.scan length = 4 carry(%c) xs() : (tensor<3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%a: tensor<3xf32>):
    lax.yield %a, %a : tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @scan_body_args(%c: tensor<3xf32>, %xs: tensor<4x3xf32>) {
  // expected-error @+1 {{body has 1 arguments but the scan has 2 operands (consts, carries, xs)}}
  %0 = lax.scan length = 4 carry(%c) xs(%xs) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_slice_arg(%c: tensor<3xf32>, %xs: tensor<4x3xf32>) {
  // expected-error @+1 {{body argument #1 has type 'tensor<4x3xf32>', expected 'tensor<3xf32>' (one slice of the xs)}}
  %0 = lax.scan length = 4 carry(%c) xs(%xs) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>, %x: tensor<4x3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_yield_count(%c: tensor<3xf32>) {
  %0 = lax.scan length = 4 carry(%c) xs() : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    // expected-error @+1 {{yields 2 values but the scan has 1 results (carries then ys slices)}}
    lax.yield %a, %a : tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @scan_yield_carry_type(%c: tensor<3xf32>, %d: tensor<4xf32>) {
  %0 = lax.scan length = 4 carry(%c) xs() : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    // expected-error @+1 {{value #0 has type 'tensor<4xf32>', expected 'tensor<3xf32>' (the carry type)}}
    lax.yield %d : tensor<4xf32>
  }
  return
}

// -----

func.func @scan_yield_ys_type(%c: tensor<3xf32>) {
  %0:2 = lax.scan length = 4 carry(%c) xs() : (tensor<3xf32>) -> (tensor<3xf32>, tensor<4x2xf32>) {
  ^bb0(%a: tensor<3xf32>):
    // expected-error @+1 {{value #1 has type 'tensor<3xf32>', expected 'tensor<2xf32>' (one slice of the ys)}}
    lax.yield %a, %a : tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @scan_implied_attr(%c: tensor<3xf32>) {
  // expected-error @+1 {{'num_carry' is implied by the operand groups; do not spell it}}
  %0 = lax.scan length = 4 carry(%c) xs() {num_carry = 1} : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @scan_counts(%c: tensor<3xf32>) {
  // expected-error @+1 {{num_consts (2) + num_carry (1) exceed the 1 operands}}
  %0 = "lax.scan"(%c) ({
  ^bb0(%a: tensor<3xf32>):
    lax.yield %a : tensor<3xf32>
  }) {length = 4 : i64, num_consts = 2 : i64, num_carry = 1 : i64, xs_axes = array<i64>, ys_axes = array<i64>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @yield_parent(%c: tensor<3xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'lax.scan, lax.while, lax.cond'}}
  lax.yield %c : tensor<3xf32>
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = lax.reshape %a : tensor<?xf32> -> tensor<4xf32>
  return
}

// -----

func.func @cholesky_not_square(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expects the operand to be square matrices}}
  %0 = lax.cholesky %a : tensor<2x3x4xf32>
  return
}

// -----

func.func @triangular_solve_mismatch(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{expects b's rows (4) to match a's size 3 (left_side)}}
  %0 = lax.triangular_solve %a, %b {left_side = true, lower = true, transpose_a = false, unit_diagonal = false} : tensor<3x3xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @lu_pivots_shape(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{expects pivots of shape [..., min(m, n)]}}
  %0:3 = lax.lu %a : tensor<4x3xf32> -> tensor<4x3xf32>, tensor<4xi32>, tensor<4xi32>
  return
}
