// RUN: graph-opt %s -p apply-pdl | filecheck %s

/// relu(relu(x)) -> relu(x) written in PDL and run by xDSL's apply-pdl on the nn
/// dialect; graph_opt.patterns.library.RemoveDoubleRelu is the same rewrite as a
/// dataflow pattern (tests/patterns/test_rewrite.py runs both).

// CHECK-LABEL: func.func @relu_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = nn.relu %[[X]]
// CHECK-NEXT:    func.return %[[R]]
func.func @relu_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = nn.relu %b : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// CHECK-LABEL: func.func @negative_relu_of_tanh
// CHECK:         nn.tanh
// CHECK-NEXT:    nn.relu
func.func @negative_relu_of_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}

pdl.pattern @double_relu : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "nn.relu"(%x : !pdl.value) -> (%type : !pdl.type)
  %inner_result = pdl.result 0 of %inner
  %outer = pdl.operation "nn.relu"(%inner_result : !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%inner_result : !pdl.value)
  }
}
