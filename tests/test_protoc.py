"""protoc compiles protos/arena/v1 for every language Arena has a kit or a bot author in mind for
(C++, Java, Go, JavaScript, Python) with no error and no warning, and the C++ and Java code it
generates compiles.

The tools are Debian's, and `make test` installs them first (`make protoc`: scripts/protoc-up.sh);
a missing one fails the test, naming that script. Python's generator is grpc_tools' (the one
protos/generate.py uses). JavaScript has no generator in Debian's protoc (3.21 has none built in,
and npm's protoc-gen-js is a download of a prebuilt binary), and JavaScript bots do not generate
code: they load the .proto files at run time with @grpc/proto-loader. So the JavaScript check is
that this loader reads every file and finds the same messages, fields, enums and services as
protoc does (tests/protoc/load.js; the packages come from npm, at tests/protoc's locked versions).
Go's output is generated and checked for warnings, not compiled: that would need Go itself.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parents[1]
PROTOS = ROOT / "protos"
FILES = sorted(p.relative_to(PROTOS).as_posix() for p in (PROTOS / "arena" / "v1").glob("*.proto"))
NAMES = [Path(f).stem for f in FILES]  # arena, bandits, ...
LOADER = ROOT / "tests" / "protoc"  # load.js and its npm packages
JARS = Path("/usr/share/java")
# what javac needs for protoc's and grpc_java_plugin's output (Debian's libprotobuf-java, libgrpc-java)
JAVA_CLASSPATH = ("protobuf", "grpc-api", "grpc-stub", "grpc-protobuf", "grpc-protobuf-lite", "guava",
                  "geronimo-annotation-1.3-spec")
INSTALL = "run `make protoc` (scripts/protoc-up.sh, as root), which installs the protoc tools"


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is missing: {INSTALL}")
    return path


def run(cmd: list[str], what: str, cwd: Path | None = None) -> str:
    """Runs ``cmd``; fails on a non-zero exit or on anything on stderr, where protoc writes its
    warnings. Returns its stdout."""
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    assert proc.returncode == 0 and not proc.stderr.strip(), (
        f"{what}: exit {proc.returncode}, and on stderr:\n{proc.stderr}")
    return proc.stdout


def protoc(out: Path, *options: str, python: bool = False) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "grpc_tools.protoc"] if python else [tool("protoc")]
    run([*command, f"-I{PROTOS}", *options, *FILES], f"protoc {' '.join(options)}")
    return out


def generate(language: str, out: Path) -> Path:
    """protoc's code for ``language`` in ``out``."""
    if language == "cpp":
        return protoc(out, f"--cpp_out={out}", f"--grpc_out={out}",
                      f"--plugin=protoc-gen-grpc={tool('grpc_cpp_plugin')}")
    if language == "java":
        return protoc(out, f"--java_out={out}", f"--grpc-java_out={out}",
                      f"--plugin=protoc-gen-grpc-java={tool('grpc_java_plugin')}")
    if language == "go":
        tool("protoc-gen-go")
        tool("protoc-gen-go-grpc")
        return protoc(out, f"--go_out={out}", f"--go-grpc_out={out}")
    if language == "python":
        return protoc(out, f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}", python=True)
    assert language == "descriptors"  # what the JavaScript check compares with
    return protoc(out, f"--descriptor_set_out={out / 'arena.pb'}", "--include_imports")


# what each language's output must hold, relative to the output folder
EXPECTED = {
    "cpp": [f"arena/v1/{n}.pb.{ext}" for n in NAMES for ext in ("h", "cc")] + ["arena/v1/arena.grpc.pb.h"],
    "java": ["org/arena/v1/RefereeGrpc.java", "org/arena/v1/ProhisView.java", "org/arena/v1/BanditsCard.java"],
    "go": [f"arena/v1/arenapb/{n}.pb.go" for n in NAMES] + ["arena/v1/arenapb/arena_grpc.pb.go"],
    "python": [f"arena/v1/{n}_pb2.py" for n in NAMES] + ["arena/v1/arena_pb2_grpc.py"],
    "descriptors": ["arena.pb"],
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """language -> the folder of its generated code, generated once per module."""
    done: dict[str, Path] = {}

    def get(language: str) -> Path:
        if language not in done:
            done[language] = generate(language, tmp_path_factory.mktemp(language))
        return done[language]

    return get


@pytest.mark.parametrize("language", list(EXPECTED))
def test_protoc_generates_each_language_without_a_warning(language, generated):
    out = generated(language)
    assert [f for f in EXPECTED[language] if not (out / f).is_file()] == []


def test_the_cpp_code_compiles(generated):
    out = generated("cpp")
    flags = run(["pkg-config", "--cflags", "grpc++", "protobuf"], "pkg-config").split()
    sources = sorted(out.rglob("*.cc"))
    compiler = tool("g++")
    # each file on its own (their file-level statics share names), two at a time: the machine's cores
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda source: run([compiler, "-std=c++17", "-fsyntax-only", f"-I{out}", *flags, str(source)],
                                         f"g++ {source.name}"), sources))


def test_the_java_code_compiles(generated, tmp_path):
    out = generated("java")
    jars = [JARS / f"{name}.jar" for name in JAVA_CLASSPATH]
    missing = [jar.name for jar in jars if not jar.is_file()]
    assert not missing, f"{', '.join(missing)} missing: {INSTALL}"
    sources = sorted(str(p) for p in out.rglob("*.java"))
    run([tool("javac"), "-d", str(tmp_path), "-cp", ":".join(map(str, jars)), *sources], "javac")
    assert (tmp_path / "org" / "arena" / "v1" / "RefereeGrpc.class").is_file()


LABEL, TYPE = descriptor_pb2.FieldDescriptorProto.Label.Name, descriptor_pb2.FieldDescriptorProto.Type.Name


def field_type(message: descriptor_pb2.DescriptorProto, field: descriptor_pb2.FieldDescriptorProto) -> str:
    """Its scalar type, its enum's or message's name, or map<KEY,VALUE>, as load.js writes it."""
    name = field.type_name.rsplit(".", 1)[-1]
    entry = next((t for t in message.nested_type if t.name == name and t.options.map_entry), None)
    if entry is not None:
        return f"map<{','.join(TYPE(f.type) for f in entry.field)}>"
    return name or TYPE(field.type)


def summary(descriptors: descriptor_pb2.FileDescriptorSet) -> dict:
    """What protoc read, in the shape tests/protoc/load.js prints."""
    out: dict = {}
    for file in descriptors.file:
        for message in file.message_type:
            out[f"{file.package}.{message.name}"] = {
                "fields": [[f.name, f.number, LABEL(f.label), field_type(message, f)] for f in message.field],
                "oneofs": [o.name for o in message.oneof_decl]}
        for enum in file.enum_type:
            out[f"{file.package}.{enum.name}"] = {"values": [[v.name, v.number] for v in enum.value]}
        for service in file.service:
            out[f"{file.package}.{service.name}"] = {"methods": [
                [m.name, m.input_type.rsplit(".", 1)[-1], m.client_streaming,
                 m.output_type.rsplit(".", 1)[-1], m.server_streaming] for m in service.method]}
    return out


def test_javascript_loads_the_protos_as_protoc_reads_them(generated):
    descriptors = descriptor_pb2.FileDescriptorSet.FromString((generated("descriptors") / "arena.pb").read_bytes())
    if not (LOADER / "node_modules" / "@grpc" / "proto-loader").is_dir():
        pytest.fail(f"@grpc/proto-loader is not installed in {LOADER}: {INSTALL}")
    loaded = json.loads(run([tool("node"), "load.js", str(PROTOS), *FILES], "@grpc/proto-loader", cwd=LOADER))
    expected = summary(descriptors)
    assert len(expected) > 50  # every message, enum and service of the five files
    assert loaded == expected
