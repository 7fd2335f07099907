"""`graph-opt` on GraphDefs: options, and one-line errors with exit code 1.

The error cases the brief names run the installed command; the others call its
`main` in-process, which is the same code without the start-up cost."""

from __future__ import annotations

import subprocess

from make_fixtures import FIXTURES

from graph_opt.tools.graph_opt_main import main


def graph_opt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["graph-opt", *args], capture_output=True, text=True, timeout=120
    )


def graph_opt_in_process(capsys, *args: str) -> subprocess.CompletedProcess:
    code = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_unsupported_ops_are_listed_with_counts():
    result = graph_opt(str(FIXTURES / "unsupported.pbtxt"))
    assert_one_line_error(result, "unsupported TensorFlow ops: Foo (3), Bar (1)")


def test_unsupported_ops_as_opaque(capsys):
    result = graph_opt_in_process(
        capsys, str(FIXTURES / "unsupported.pbtxt"), "--allow-tf-opaque"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('op_type = "Foo"') == 3
    assert (
        'nn.opaque %b {op_type = "Bar", domain = "tf", attrs = {depth = 3 : i64}}'
        in result.stdout
    )


def test_malformed_graph(tmp_path):
    path = tmp_path / "truncated.pb"
    path.write_bytes(b"\x0a\x40\x0a\x01x")
    assert_one_line_error(
        graph_opt(str(path)), str(path), "not a valid TensorFlow GraphDef"
    )


def test_malformed_text_graph(tmp_path, capsys):
    path = tmp_path / "broken.pbtxt"
    path.write_text("node { name: 'x' op: }")
    result = graph_opt_in_process(capsys, str(path))
    assert_one_line_error(result, str(path), "not a valid TensorFlow GraphDef", "1:22")


def test_missing_input_shape():
    result = graph_opt(str(FIXTURES / "no_shape.pbtxt"))
    assert_one_line_error(
        result, "placeholder 'images' has no known shape", "--input-shape"
    )


def test_input_shape_and_outputs_options(capsys):
    result = graph_opt_in_process(
        capsys,
        str(FIXTURES / "no_shape.pbtxt"),
        "--input-shape",
        "images=2,3",
        "--outputs",
        "relu",
    )
    assert result.returncode == 0, result.stderr
    assert '%images: tensor<2x3xf32> {nn.name = "images"}' in result.stdout
    assert 'tensor<2x3xf32> {nn.name = "relu"}' in result.stdout


def test_bad_input_shape_option(capsys):
    result = graph_opt_in_process(
        capsys, str(FIXTURES / "no_shape.pbtxt"), "--input-shape", "images=2,x"
    )
    assert_one_line_error(result, "bad --input-shape 'images=2,x'")


def test_unknown_output_name(capsys):
    result = graph_opt_in_process(
        capsys, str(FIXTURES / "bias_add.pbtxt"), "--outputs", "nhwc,nope:1"
    )
    assert_one_line_error(result, "output 'nope:1' is not a node of the graph")
