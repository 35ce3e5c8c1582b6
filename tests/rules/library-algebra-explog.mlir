// The algebra library's exp/log and pow/sqrt rules (rules/library/algebra/
// exp-log.yaml, pow-sqrt.yaml), each with the tags it needs. Without them
// only the exact rules run (the last RUN line).
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/exp-log.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/pow-sqrt.yaml \
// RUN:   --rule-tags=changes-precision,assumes-positive,assumes-finite,assumes-nonnegative,assumes-no-overflow | FileCheck %s
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/exp-log.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/pow-sqrt.yaml | FileCheck %s --check-prefix=EXACT

// CHECK-LABEL: func.func @exp_log_ratio
// CHECK-NEXT: %[[R:.*]] = lax.div %arg0, %arg1
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @exp_log_ratio
// EXACT: lax.exp
func.func @exp_log_ratio(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.log %a : tensor<6xf32>
  %1 = lax.log %b : tensor<6xf32>
  %2 = lax.sub %0, %1 : tensor<6xf32>
  %3 = lax.exp %2 : tensor<6xf32>
  return %3 : tensor<6xf32>
}

// CHECK-LABEL: func.func @exp_log_product
// CHECK-NEXT: %[[R:.*]] = lax.mul %arg0, %arg1
// CHECK-NEXT: return %[[R]]
func.func @exp_log_product(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.log %a : tensor<6xf32>
  %1 = lax.log %b : tensor<6xf32>
  %2 = lax.add %0, %1 : tensor<6xf32>
  %3 = lax.exp %2 : tensor<6xf32>
  return %3 : tensor<6xf32>
}

// CHECK-LABEL: func.func @exp_neg_log
// CHECK-NEXT: %[[ONE:.*]] = lax.constant dense<1.000000e+00>
// CHECK-NEXT: %[[R:.*]] = lax.div %[[ONE]], %arg0
// CHECK-NEXT: return %[[R]]
func.func @exp_neg_log(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.log %a : tensor<6xf32>
  %1 = lax.neg %0 : tensor<6xf32>
  %2 = lax.exp %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @exp_of_log
// CHECK-NEXT: return %arg0
func.func @exp_of_log(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.log %a : tensor<6xf32>
  %1 = lax.exp %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @log_of_exp
// CHECK-NEXT: return %arg0
func.func @log_of_exp(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.exp %a : tensor<6xf32>
  %1 = lax.log %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @exp_times_exp
// CHECK-NEXT: %[[S:.*]] = lax.add %arg0, %arg1
// CHECK-NEXT: %[[R:.*]] = lax.exp %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @exp_times_exp(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.exp %a : tensor<6xf32>
  %1 = lax.exp %b : tensor<6xf32>
  %2 = lax.mul %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @exp_over_exp
// CHECK-NEXT: %[[S:.*]] = lax.sub %arg0, %arg1
// CHECK-NEXT: %[[R:.*]] = lax.exp %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @exp_over_exp(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.exp %a : tensor<6xf32>
  %1 = lax.exp %b : tensor<6xf32>
  %2 = lax.div %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @log_plus_log
// CHECK-NEXT: %[[P:.*]] = lax.mul %arg0, %arg1
// CHECK-NEXT: %[[R:.*]] = lax.log %[[P]]
// CHECK-NEXT: return %[[R]]
func.func @log_plus_log(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.log %a : tensor<6xf32>
  %1 = lax.log %b : tensor<6xf32>
  %2 = lax.add %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @log_minus_log
// CHECK-NEXT: %[[Q:.*]] = lax.div %arg0, %arg1
// CHECK-NEXT: %[[R:.*]] = lax.log %[[Q]]
// CHECK-NEXT: return %[[R]]
func.func @log_minus_log(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.log %a : tensor<6xf32>
  %1 = lax.log %b : tensor<6xf32>
  %2 = lax.sub %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @log_of_sqrt
// CHECK-NEXT: %[[L:.*]] = lax.log %arg0
// CHECK-NEXT: %[[H:.*]] = lax.constant dense<5.000000e-01>
// CHECK-NEXT: %[[R:.*]] = lax.mul %[[L]], %[[H]]
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @log_of_sqrt
// EXACT: lax.sqrt
func.func @log_of_sqrt(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.sqrt %a : tensor<6xf32>
  %1 = lax.log %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @log_of_pow
// CHECK-NEXT: %[[L:.*]] = lax.log %arg0
// CHECK-NEXT: %[[N:.*]] = lax.constant dense<3.000000e+00>
// CHECK-NEXT: %[[R:.*]] = lax.mul %[[L]], %[[N]]
// CHECK-NEXT: return %[[R]]
func.func @log_of_pow(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 3 : tensor<6xf32>
  %1 = lax.log %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @log_of_reciprocal
// CHECK-NEXT: %[[L:.*]] = lax.log %arg0
// CHECK-NEXT: %[[R:.*]] = lax.neg %[[L]]
// CHECK-NEXT: return %[[R]]
func.func @log_of_reciprocal(%a: tensor<6xf32>) -> tensor<6xf32> {
  %one = lax.constant dense<1.0> : tensor<6xf32>
  %0 = lax.div %one, %a : tensor<6xf32>
  %1 = lax.log %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @sqrt_of_exp
// CHECK-NEXT: %[[H:.*]] = lax.constant dense<5.000000e-01>
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[H]]
// CHECK-NEXT: %[[R:.*]] = lax.exp %[[M]]
// CHECK-NEXT: return %[[R]]
func.func @sqrt_of_exp(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.exp %a : tensor<6xf32>
  %1 = lax.sqrt %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @pow_of_exp
// CHECK-NEXT: %[[N:.*]] = lax.constant dense<3.000000e+00>
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[N]]
// CHECK-NEXT: %[[R:.*]] = lax.exp %[[M]]
// CHECK-NEXT: return %[[R]]
func.func @pow_of_exp(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.exp %a : tensor<6xf32>
  %1 = lax.integer_pow %0 y = 3 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// Exact normal forms: square, x * x, x ** -1.
// CHECK-LABEL: func.func @square_forms
// CHECK-NEXT: %[[A:.*]] = lax.integer_pow %arg0 y = 2
// CHECK-NEXT: %[[B:.*]] = lax.integer_pow %arg1 y = 2
// CHECK-NEXT: %[[S:.*]] = lax.add %[[A]], %[[B]]
// CHECK-NEXT: return %[[S]]
// EXACT-LABEL: func.func @square_forms
// EXACT-NEXT: lax.integer_pow %arg0 y = 2
// EXACT-NEXT: lax.integer_pow %arg1 y = 2
func.func @square_forms(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.square %a : tensor<6xf32>
  %1 = lax.mul %b, %b : tensor<6xf32>
  %2 = lax.add %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @pow_minus_one
// CHECK-NEXT: %[[ONE:.*]] = lax.constant dense<1.000000e+00>
// CHECK-NEXT: %[[R:.*]] = lax.div %[[ONE]], %arg0
// CHECK-NEXT: return %[[R]]
func.func @pow_minus_one(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = -1 : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @even_power_of_neg_abs
// CHECK-NEXT: %[[A:.*]] = lax.integer_pow %arg0 y = 4
// CHECK-NEXT: %[[B:.*]] = lax.integer_pow %arg1 y = 2
// CHECK-NEXT: %[[S:.*]] = lax.add %[[A]], %[[B]]
// CHECK-NEXT: return %[[S]]
func.func @even_power_of_neg_abs(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.neg %a : tensor<6xf32>
  %1 = lax.integer_pow %0 y = 4 : tensor<6xf32>
  %2 = lax.abs %b : tensor<6xf32>
  %3 = lax.integer_pow %2 y = 2 : tensor<6xf32>
  %4 = lax.add %1, %3 : tensor<6xf32>
  return %4 : tensor<6xf32>
}

// An odd power keeps its sign.
// CHECK-LABEL: func.func @odd_power_of_neg
// CHECK-NEXT: lax.neg
// CHECK-NEXT: lax.integer_pow {{.*}} y = 3
func.func @odd_power_of_neg(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.neg %a : tensor<6xf32>
  %1 = lax.integer_pow %0 y = 3 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @x_over_sqrt_x
// CHECK-NEXT: %[[R:.*]] = lax.sqrt %arg0
// CHECK-NEXT: return %[[R]]
func.func @x_over_sqrt_x(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.sqrt %a : tensor<6xf32>
  %1 = lax.div %a, %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @x_times_rsqrt_x
// CHECK-NEXT: %[[R:.*]] = lax.sqrt %arg0
// CHECK-NEXT: return %[[R]]
func.func @x_times_rsqrt_x(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.rsqrt %a : tensor<6xf32>
  %1 = lax.mul %0, %a : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @one_over_rsqrt
// CHECK-NEXT: %[[R:.*]] = lax.sqrt %arg0
// CHECK-NEXT: return %[[R]]
func.func @one_over_rsqrt(%a: tensor<6xf32>) -> tensor<6xf32> {
  %one = lax.constant dense<1.0> : tensor<6xf32>
  %0 = lax.rsqrt %a : tensor<6xf32>
  %1 = lax.div %one, %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @sqrt_times_sqrt
// CHECK-NEXT: return %arg0
func.func @sqrt_times_sqrt(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.sqrt %a : tensor<6xf32>
  %1 = lax.sqrt %a : tensor<6xf32>
  %2 = lax.mul %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// sqrt(x) ** 4 is x * x; sqrt(x) ** 2 is x.
// CHECK-LABEL: func.func @even_power_of_sqrt
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 2
// CHECK-NEXT: %[[S:.*]] = lax.add %[[P]], %arg0
// CHECK-NEXT: return %[[S]]
func.func @even_power_of_sqrt(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.sqrt %a : tensor<6xf32>
  %1 = lax.integer_pow %0 y = 4 : tensor<6xf32>
  %2 = lax.integer_pow %0 y = 2 : tensor<6xf32>
  %3 = lax.add %1, %2 : tensor<6xf32>
  return %3 : tensor<6xf32>
}

// CHECK-LABEL: func.func @even_power_of_rsqrt
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = -2
// CHECK-NEXT: return %[[P]]
func.func @even_power_of_rsqrt(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.rsqrt %a : tensor<6xf32>
  %1 = lax.integer_pow %0 y = 4 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @sqrt_of_square
// CHECK-NEXT: %[[A:.*]] = lax.abs %arg0
// CHECK-NEXT: return %[[A]]
func.func @sqrt_of_square(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 2 : tensor<6xf32>
  %1 = lax.sqrt %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @sqrt_of_even_power
// CHECK-NEXT: %[[A:.*]] = lax.abs %arg0
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %[[A]] y = 3
// CHECK-NEXT: return %[[P]]
func.func @sqrt_of_even_power(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 6 : tensor<6xf32>
  %1 = lax.sqrt %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// x ** 6 / x ** 4 is x ** 2.
// CHECK-LABEL: func.func @power_over_power
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 2
// CHECK-NEXT: return %[[P]]
func.func @power_over_power(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 6 : tensor<6xf32>
  %1 = lax.integer_pow %a y = 4 : tensor<6xf32>
  %2 = lax.div %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @power_over_x
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 4
// CHECK-NEXT: %[[Q:.*]] = lax.integer_pow %arg1 y = -2
// CHECK-NEXT: %[[S:.*]] = lax.add %[[P]], %[[Q]]
// CHECK-NEXT: return %[[S]]
func.func @power_over_x(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 5 : tensor<6xf32>
  %1 = lax.div %0, %a : tensor<6xf32>
  %2 = lax.integer_pow %b y = 3 : tensor<6xf32>
  %3 = lax.div %b, %2 : tensor<6xf32>
  %4 = lax.add %1, %3 : tensor<6xf32>
  return %4 : tensor<6xf32>
}

// x * x * x * x: x ** 2, then x ** 3, then x ** 4.
// CHECK-LABEL: func.func @repeated_product
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 4
// CHECK-NEXT: return %[[P]]
// EXACT-LABEL: func.func @repeated_product
// EXACT-NEXT: lax.integer_pow %arg0 y = 2
// EXACT-NEXT: lax.mul
func.func @repeated_product(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.mul %a, %a : tensor<6xf32>
  %1 = lax.mul %0, %a : tensor<6xf32>
  %2 = lax.mul %a, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @power_times_power
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 5
// CHECK-NEXT: return %[[P]]
func.func @power_times_power(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 2 : tensor<6xf32>
  %1 = lax.integer_pow %a y = 3 : tensor<6xf32>
  %2 = lax.mul %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @power_times_x
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 4
// CHECK-NEXT: return %[[P]]
func.func @power_times_x(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 3 : tensor<6xf32>
  %1 = lax.mul %a, %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @power_of_power
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 6
// CHECK-NEXT: return %[[P]]
func.func @power_of_power(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.integer_pow %a y = 2 : tensor<6xf32>
  %1 = lax.integer_pow %0 y = 3 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// x ** 3.0, x ** 2.0, ...: pow with a constant exponent (x ** -1 then 1 / x).
// CHECK-LABEL: func.func @pow_constant
// CHECK-DAG: lax.integer_pow %arg0 y = 2
// CHECK-DAG: lax.integer_pow %arg0 y = 3
// CHECK-DAG: lax.integer_pow %arg0 y = 4
// CHECK-DAG: lax.div %{{.*}}, %arg0
// CHECK-DAG: lax.integer_pow %arg0 y = -2
// CHECK-NOT: lax.pow
// CHECK: return
func.func @pow_constant(%a: tensor<6xf32>) -> tensor<6xf32> {
  %c2 = lax.constant dense<2.0> : tensor<6xf32>
  %c3 = lax.constant dense<3.0> : tensor<6xf32>
  %c4 = lax.constant dense<4.0> : tensor<6xf32>
  %cm1 = lax.constant dense<-1.0> : tensor<6xf32>
  %cm2 = lax.constant dense<-2.0> : tensor<6xf32>
  %0 = lax.pow %a, %c2 : tensor<6xf32>
  %1 = lax.pow %a, %c3 : tensor<6xf32>
  %2 = lax.pow %a, %c4 : tensor<6xf32>
  %3 = lax.pow %a, %cm1 : tensor<6xf32>
  %4 = lax.pow %a, %cm2 : tensor<6xf32>
  %5 = lax.add %0, %1 : tensor<6xf32>
  %6 = lax.add %5, %2 : tensor<6xf32>
  %7 = lax.add %6, %3 : tensor<6xf32>
  %8 = lax.add %7, %4 : tensor<6xf32>
  return %8 : tensor<6xf32>
}

// CHECK-LABEL: func.func @pow_half
// CHECK-NEXT: %[[R:.*]] = lax.sqrt %arg0
// CHECK-NEXT: return %[[R]]
func.func @pow_half(%a: tensor<6xf32>) -> tensor<6xf32> {
  %c = lax.constant dense<0.5> : tensor<6xf32>
  %0 = lax.pow %a, %c : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @pow_minus_half
// CHECK-NEXT: %[[R:.*]] = lax.rsqrt %arg0
// CHECK-NEXT: return %[[R]]
func.func @pow_minus_half(%a: tensor<6xf32>) -> tensor<6xf32> {
  %c = lax.constant dense<-0.5> : tensor<6xf32>
  %0 = lax.pow %a, %c : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @pow_one_and_a_half
// CHECK-NEXT: %[[S:.*]] = lax.sqrt %arg0
// CHECK-NEXT: %[[R:.*]] = lax.mul %arg0, %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @pow_one_and_a_half(%a: tensor<6xf32>) -> tensor<6xf32> {
  %c = lax.constant dense<1.5> : tensor<6xf32>
  %0 = lax.pow %a, %c : tensor<6xf32>
  return %0 : tensor<6xf32>
}
