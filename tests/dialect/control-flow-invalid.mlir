// Every verifier message of lax.while and lax.cond (and of their custom
// syntax).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect

func.func @while_too_few_operands(%x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op num_cond_consts (1) + num_body_consts (1) exceed the 1 operands}}
  %r = "lax.while"(%x) <{num_cond_consts = 1 : i64, num_body_consts = 1 : i64}> ({
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @while_result_count(%x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op has 1 initial carries but 2 results (the results are the final carries)}}
  %r:2 = lax.while carry(%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_result_type(%x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op final carry #0 has type 'tensor<f64>' but its initial value has type 'tensor<f32>'}}
  %r = lax.while carry(%x) : (tensor<f32>) -> tensor<f64>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_arity(%k: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op cond region has 1 arguments but expected 2 (the cond consts, then the carries)}}
  %r = lax.while cond_consts(%k) carry(%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_arg_type(%k: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op cond region argument #1 has type 'tensor<f64>', expected 'tensor<f32>' (carry #0)}}
  %r = lax.while cond_consts(%k) carry(%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%kk: tensor<i32>, %a: tensor<f64>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_const_type(%k: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op cond region argument #0 has type 'tensor<f32>', expected 'tensor<i32>' (cond const #0)}}
  %r = lax.while cond_consts(%k) carry(%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%kk: tensor<f32>, %a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_yields_two(%x: tensor<f32>) {
  %r = lax.while carry(%x) : (tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    // expected-error @+1 {{'lax.yield' op yields 2 values but the lax.while's cond region must yield 1 (the predicate)}}
    lax.yield %p, %p : tensor<i1>, tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_not_i1(%x: tensor<f32>) {
  %r = lax.while carry(%x) : (tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<2xi1>
    // expected-error @+1 {{'lax.yield' op value #0 has type 'tensor<2xi1>', expected 'tensor<i1>' (the predicate)}}
    lax.yield %p : tensor<2xi1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_body_arity(%k: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op body region has 1 arguments but expected 2 (the body consts, then the carries)}}
  %r = lax.while body_consts(%k) carry(%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_body_arg_type(%k: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op body region argument #0 has type 'tensor<f32>', expected 'tensor<i32>' (body const #0)}}
  %r = lax.while body_consts(%k) carry(%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%kk: tensor<f32>, %a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_body_yield_count(%x: tensor<f32>) {
  %r = lax.while carry(%x) : (tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{'lax.yield' op yields 2 values but the lax.while's body region must yield 1 (the next carries, of the carries' types)}}
    lax.yield %a, %a : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @while_body_yield_type(%x: tensor<f32>) {
  %r = lax.while carry(%x) : (tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    %b = lax.constant dense<1.0> : tensor<2xf32>
    // expected-error @+1 {{'lax.yield' op value #0 has type 'tensor<2xf32>', expected 'tensor<f32>' (the next carries, of the carries' types)}}
    lax.yield %b : tensor<2xf32>
  }
  return
}

// -----

func.func @while_no_yield(%x: tensor<f32>) {
  // expected-error @+1 {{'lax.while' op cond region must end with lax.yield}}
  %r = lax.while carry(%x) : (tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    "test.terminator"(%p) : (tensor<i1>) -> ()
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @while_implied_attr(%x: tensor<f32>) {
  // expected-error @+1 {{'num_cond_consts' is implied by the operand groups; do not spell it}}
  %r = lax.while carry(%x) {num_cond_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  cond {
  ^bb0(%a: tensor<f32>):
    %p = lax.constant dense<true> : tensor<i1>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_no_branches(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.cond' op has no branches; expected at least one}}
  %r = "lax.cond"(%i, %x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @cond_index_type(%i: tensor<i64>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.cond' op operand #0 must be 0D tensor of 32-bit signless integer or 1-bit signless integer values}}
  %r = lax.cond %i (%x) : (tensor<i64>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_i1_three(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.cond' op has an i1 index, which selects between exactly 2 branches, but has 3 branches}}
  %r = lax.cond %p (%x) : (tensor<i1>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  } branch 1 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  } branch 2 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_branch_arity(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.cond' op branch 1 has 0 arguments but expected 1 (the cond's operands after the index)}}
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  } branch 1 {
    %c = lax.constant dense<1.0> : tensor<f32>
    lax.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @cond_branch_arg_type(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'lax.cond' op branch 0 argument #0 has type 'tensor<i32>', expected 'tensor<f32>' (the type of operand #1)}}
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<i32>):
    %c = lax.constant dense<1.0> : tensor<f32>
    lax.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @cond_yield_count(%i: tensor<i32>, %x: tensor<f32>) {
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{'lax.yield' op yields 0 values but the lax.cond's branch 0 must yield 1 (the cond's result types)}}
    lax.yield
  }
  return
}

// -----

func.func @cond_yield_type(%i: tensor<i32>, %x: tensor<f32>) {
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  } branch 1 {
  ^bb0(%a: tensor<f32>):
    %c = lax.constant dense<1> : tensor<i32>
    // expected-error @+1 {{'lax.yield' op value #0 has type 'tensor<i32>', expected 'tensor<f32>' (the cond's result types)}}
    lax.yield %c : tensor<i32>
  }
  return
}

// -----

func.func @cond_branch_numbering(%i: tensor<i32>, %x: tensor<f32>) {
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  branch 0 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  // expected-error @+1 {{expected branch 1, got 2}}
  } branch 2 {
  ^bb0(%a: tensor<f32>):
    lax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<f32>) {
  // expected-error @+1 {{'lax.yield' op expects parent op to be one of 'lax.scan, lax.while, lax.cond'}}
  lax.yield %x : tensor<f32>
}
