// Every verifier message of lax.gather and lax.scatter (LaxIndexing.cpp).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @gather_float_indices(%x: tensor<10x8xf32>, %i: tensor<5x1xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer or 32-bit unsigned integer values of at most 2^62 bytes, but got 'tensor<5x1xf32>'}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 8] mode = clip : (tensor<10x8xf32>, tensor<5x1xf32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_scalar_indices(%x: tensor<10x8xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{start_indices must have rank >= 1: its last dimension is the index vector}}
  %r = lax.gather %x[%i] offset_dims = [0] collapsed_slice_dims = [0] start_index_map = [] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<i32>) -> tensor<8xf32>
  return
}

// -----

func.func @gather_index_vector(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{start_index_map has 2 entries but the index vector (the last dimension of start_indices) has 1}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0, 1] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_index_map_range(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{start_index_map entry 2 is out of range: expected 0 <= dim < 2}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [2] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_index_map_repeat(%x: tensor<10x8xf32>, %i: tensor<5x2xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{start_index_map has duplicate entry 0}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0, 0] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x2xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_batching_unsorted(%x: tensor<3x4x8xf32>, %i: tensor<4x3x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand_batching_dims must be sorted, got [1, 0]}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [2] start_index_map = [2] batching_dims = [1, 0] x [0, 1] slice_sizes = [1, 1, 1] mode = clip
      : (tensor<3x4x8xf32>, tensor<4x3x1xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_batching_index_vector(%x: tensor<3x8xf32>, %i: tensor<3x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{start_indices_batching_dims entry 1 is out of range: expected 0 <= dim < 1}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1] batching_dims = [0] x [1] slice_sizes = [1, 1] mode = clip
      : (tensor<3x8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_batching_and_index_map(%x: tensor<3x8xf32>, %i: tensor<3x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand dimension 0 is in both start_index_map and operand_batching_dims}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [0] batching_dims = [0] x [0] slice_sizes = [1, 1] mode = clip
      : (tensor<3x8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_batching_count(%x: tensor<3x8xf32>, %i: tensor<3x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand_batching_dims has 1 entries but start_indices_batching_dims has 0}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1] batching_dims = [0] x [] slice_sizes = [1, 1] mode = clip
      : (tensor<3x8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_batching_size(%x: tensor<3x8xf32>, %i: tensor<4x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand batching dimension 0 (size 3) and start_indices batching dimension 0 (size 4) differ in size}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1] batching_dims = [0] x [0] slice_sizes = [1, 1] mode = clip
      : (tensor<3x8xf32>, tensor<4x1xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_slice_sizes_count(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{slice_sizes has 1 entries, expected one per operand dimension (2)}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_slice_size_range(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{slice size 9 of dimension 1 is out of range: expected 0 <= size <= 8}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 9] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x9xf32>
  return
}

// -----

func.func @gather_collapsed_range(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{collapsed_slice_dims entry 2 is out of range: expected 0 <= dim < 2}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [2] start_index_map = [0] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_collapsed_unsorted(%x: tensor<10x8xf32>, %i: tensor<5x2xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{collapsed_slice_dims must be sorted, got [1, 0]}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1, 0] start_index_map = [0, 1] slice_sizes = [1, 1] mode = clip
      : (tensor<10x8xf32>, tensor<5x2xi32>) -> tensor<5xf32>
  return
}

// -----

func.func @gather_collapsed_and_batching(%x: tensor<3x8xf32>, %i: tensor<3x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand dimension 0 is in both collapsed_slice_dims and operand_batching_dims}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [1] batching_dims = [0] x [0] slice_sizes = [1, 1] mode = clip
      : (tensor<3x8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_collapsed_size(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{collapsed slice dimension 0 has slice size 2, expected at most 1}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [2, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_batching_size_1(%x: tensor<3x8xf32>, %i: tensor<3x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand batching dimension 0 has slice size 2, expected at most 1}}
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1] batching_dims = [0] x [0] slice_sizes = [2, 1] mode = clip
      : (tensor<3x8xf32>, tensor<3x1xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_offset_count(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{offset_dims has 2 entries, expected one per operand dimension that is neither collapsed nor batching (1)}}
  %r = lax.gather %x[%i] offset_dims = [1, 2] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_offset_range(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{offset_dims entry 2 is out of range: expected 0 <= dim < 2}}
  %r = lax.gather %x[%i] offset_dims = [2] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_offset_unsorted(%x: tensor<10x8xf32>, %i: tensor<1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{offset_dims must be sorted, got [1, 0]}}
  %r = lax.gather %x[%i] offset_dims = [1, 0] collapsed_slice_dims = [] start_index_map = [0] slice_sizes = [10, 8] mode = clip
      : (tensor<10x8xf32>, tensor<1xi32>) -> tensor<10x8xf32>
  return
}

// -----

func.func @gather_fill_mode(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{fill_value needs mode fill_or_drop}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 8] mode = clip fill(0.0 : f32)
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_fill_type(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{fill_value must be a scalar of the operand's element type 'f32', got 0 : i32}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 8] mode = fill_or_drop fill(0 : i32)
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return
}

// -----

func.func @gather_result_type(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'lax.gather' op inferred type(s) 'tensor<5x8xf32>' are incompatible with return type(s) of operation 'tensor<8x5xf32>'}}
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 8] mode = clip
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<8x5xf32>
  return
}

// -----

func.func @scatter_element_type(%x: tensor<10xf32>, %i: tensor<6x1xi32>, %u: tensor<6xf64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{updates element type 'f64' differs from the operand's 'f32'}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10xf32>, tensor<6x1xi32>, tensor<6xf64>) -> tensor<10xf32>
  return
}

// -----

func.func @scatter_index_vector(%x: tensor<10x4xf32>, %i: tensor<6x2xi32>, %u: tensor<6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{scatter_dims_to_operand_dims has 1 entries but the index vector (the last dimension of scatter_indices) has 2}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0, 1] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<6x2xi32>, tensor<6xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_indices_batching_repeat(%x: tensor<3x3x8xf32>, %i: tensor<3x3x1xi32>, %u: tensor<3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{scatter_indices_batching_dims has duplicate entry 0}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [2] scatter_dims_to_operand_dims = [2] batching_dims = [0, 1] x [0, 0] mode = clip
      : (tensor<3x3x8xf32>, tensor<3x3x1xi32>, tensor<3x3xf32>) -> tensor<3x3x8xf32>
  return
}

// -----

func.func @scatter_inserted_range(%x: tensor<10xf32>, %i: tensor<6x1xi32>, %u: tensor<6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inserted_window_dims entry 1 is out of range: expected 0 <= dim < 1}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [1] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<10xf32>
  return
}

// -----

func.func @scatter_inserted_unsorted(%x: tensor<10x4xf32>, %i: tensor<6x2xi32>, %u: tensor<6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inserted_window_dims must be sorted, got [1, 0]}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [1, 0] scatter_dims_to_operand_dims = [0, 1] mode = clip
      : (tensor<10x4xf32>, tensor<6x2xi32>, tensor<6xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_inserted_and_batching(%x: tensor<3x8xf32>, %i: tensor<3x1xi32>, %u: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand dimension 0 is in both inserted_window_dims and operand_batching_dims}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0, 1] scatter_dims_to_operand_dims = [1] batching_dims = [0] x [0] mode = clip
      : (tensor<3x8xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @scatter_window_range(%x: tensor<10x4xf32>, %i: tensor<6x1xi32>, %u: tensor<6x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update_window_dims entry 2 is out of range: expected 0 <= dim < 2}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [2] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_window_unsorted(%x: tensor<10x4xf32>, %i: tensor<1xi32>, %u: tensor<10x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update_window_dims must be sorted, got [1, 0]}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [1, 0] inserted_window_dims = [] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<1xi32>, tensor<10x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_window_count(%x: tensor<10x4xf32>, %i: tensor<6x1xi32>, %u: tensor<6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update_window_dims has 0 entries, expected one per operand dimension that is neither inserted nor batching (1)}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_updates_rank(%x: tensor<10x4xf32>, %i: tensor<6x1xi32>, %u: tensor<4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{updates has rank 1, expected 2 (the scatter_indices dimensions without the index vector, plus update_window_dims)}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [0] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_window_size(%x: tensor<10x4xf32>, %i: tensor<6x1xi32>, %u: tensor<6x5xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update window dimension 1 (size 5) exceeds operand dimension 1 (size 4)}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [1] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x5xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_scatter_size(%x: tensor<10x4xf32>, %i: tensor<6x1xi32>, %u: tensor<5x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{update scatter dimension 0 (size 5) differs from scatter_indices dimension 0 (size 6)}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [1] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<5x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_pred_add(%x: tensor<10xi1>, %i: tensor<6x1xi32>, %u: tensor<6xi1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{scatter add needs a numeric element type, got i1}}
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10xi1>, tensor<6x1xi32>, tensor<6xi1>) -> tensor<10xi1>
  return
}

// -----

func.func @scatter_result_type(%x: tensor<10xf32>, %i: tensor<6x1xi32>, %u: tensor<6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'lax.scatter' op inferred type(s) 'tensor<10xf32>' are incompatible with return type(s) of operation 'tensor<10xf64>'}}
  %r = lax.scatter set %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<10xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<10xf64>
  return
}

// -----

func.func @scatter_mode(%x: tensor<10xf32>, %i: tensor<6x1xi32>, %u: tensor<6xf32>) {
  // expected-error @+2 {{expected string or keyword containing one of the following enum values for attribute 'mode' [clip, fill_or_drop, promise_in_bounds]}}
  %r = lax.scatter set %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = wrap
      : (tensor<10xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<10xf32>
  return
}
