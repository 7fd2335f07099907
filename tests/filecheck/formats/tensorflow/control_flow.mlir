// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/cond_v2.pb | filecheck %s --check-prefix=IF
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/cond_v1.pbtxt --outputs result | filecheck %s --check-prefix=IF
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/while_v2.pb | filecheck %s --check-prefix=WHILE
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/cond_in_while_v1.pb --outputs result | filecheck %s --check-prefix=NESTED
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/cond_in_while_v1.pb --outputs result --print-op-generic | graph-opt | filecheck %s --check-prefix=NESTED
// RUN: graph-opt %S/../../../formats/tensorflow/fixtures/partitioned_call.pb | filecheck %s --check-prefix=CALL
// RUN: not graph-opt %S/../../../formats/tensorflow/fixtures/not_nested_v1.pbtxt --outputs result 2>&1 | filecheck %s --check-prefix=ERROR

/// Functional If (with its two library functions) and the v1 Switch/Merge form
/// import alike: the 0-d bool predicate is extracted, each branch is a region.
// IF-LABEL: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"})
// IF:         %[[PRED:.*]] = nn.greater %Sum, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
// IF-NEXT:    %[[FLAG:.*]] = tensor.extract %[[PRED]][] : tensor<i1>
// IF-NEXT:    %[[IF:.*]] = scf.if %[[FLAG]] -> (tensor<2x3xf32>) {
// IF:           %[[MUL:.*]] = nn.mul %x, %{{.*}}
// IF:           scf.yield %{{.*}} : tensor<2x3xf32>
// IF-NEXT:    } else {
// IF:           %[[SUB:.*]] = nn.sub %x, %{{.*}}
// IF-NEXT:      %[[RELU:.*]] = nn.relu %[[SUB]]
// IF:           scf.yield %{{.*}} : tensor<2x3xf32>
// IF-NEXT:    }
// IF-NOT:     domain = "tf"

/// The cond function ends in scf.condition forwarding every loop value; the body
/// yields the next ones (loop counter, limit, i, x, n).
// WHILE-LABEL: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"}, %n: tensor<i32> {nn.name = "n"})
// WHILE:         scf.while (%[[C:.*]] = %while_loop_counter, %[[M:.*]] = %while_maximum_iterations, %[[I:.*]] = %Const, %[[X:.*]] = %x, %[[N:.*]] = %n) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x3xf32>, tensor<i32>)
// WHILE-NEXT:      %[[LESS:.*]] = nn.less %[[I]], %[[N]]
// WHILE:           %[[FLAG:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// WHILE-NEXT:      scf.condition(%[[FLAG]]) %[[C]], %[[M]], %[[I]], %[[X]], %[[N]]
// WHILE-NEXT:    } do {
// WHILE-NEXT:    ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>, %[[BX:.*]]: tensor<2x3xf32>, %[[BN:.*]]: tensor<i32>):
// WHILE:           nn.mul %[[BX]], %{{.*}}
// WHILE:           scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BN]]

/// v1 loop frame with a v1 cond in its body: the invariant `n` (an Enter with
/// is_constant) is carried through unchanged, the cond becomes an scf.if inside.
// NESTED-LABEL: func.func @main
// NESTED:         scf.while (%{{.*}} = %Const, %{{.*}} = %x, %[[N:.*]] = %n)
// NESTED:           scf.condition
// NESTED:         } do {
// NESTED-NEXT:    ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<2x3xf32>, %[[BN:.*]]: tensor<i32>):
// NESTED:           scf.if %{{.*}} -> (tensor<2x3xf32>) {
// NESTED:           } else {
// NESTED:           }
// NESTED:           scf.yield %{{.*}}, %{{.*}}, %[[BN]] : tensor<i32>, tensor<2x3xf32>, tensor<i32>
// NESTED-NOT:     domain = "tf"

/// The called function's body is inlined: no call and no region remain.
// CALL-LABEL: func.func @main(%x: tensor<2x3xf32> {nn.name = "x"})
// CALL-NEXT:    %Relu = nn.relu %x
// CALL:         %mul = nn.mul %Relu, %{{.*}}
// CALL:         %PartitionedCall = nn.identity %{{.*}}
// CALL-NEXT:    nn.sub %PartitionedCall, %x
// CALL-NOT:     scf.

/// A Merge of the true sides of two predicates is no structured cond.
// ERROR: error: v1 control flow that is not well nested: Merge 'Merge' does not join the two sides of one predicate: 'Switch:1' (true side of 'Greater'), 'Switch_1:1' (true side of 'Greater_1')
