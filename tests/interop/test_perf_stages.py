"""scripts/perf-stages.py, the push-path profile's table: a frame's name from a mangled Swift symbol,
and a sample's stage from its stack (leaf first; a frame that names a stage wins over the leaf)."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from herald_support import REPO

spec = importlib.util.spec_from_file_location("perf_stages", REPO / "scripts" / "perf-stages.py")
perf_stages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(perf_stages)


def test_a_mangled_symbol_is_named_by_its_module_and_type_not_by_its_signature():
    # NIOHTTP2's state machine taking HPACKHeaders: NIOHTTP2, whatever its signature names.
    symbol = ("$s8NIOHTTP223HTTP2StreamStateMachineV14receiveHeaders7headers19validateHeaderBlock0I13ContentLength"
              "28localSupportsExtendedConnect06remoteopQ005isEndC3SetAA0de10ResultWithC6EffectV8NIOHPACK12HPACKHeadersV")
    assert perf_stages.frame_name(symbol) == "NIOHTTP2.HTTP2StreamStateMachine"
    assert perf_stages.frame_name("$s10HeraldCore13PushValidatorO8validate") == "HeraldCore.PushValidator"
    assert perf_stages.frame_name("sqlite3VdbeExec") == "sqlite3VdbeExec"
    # A member of an extension in another module is that module's: NIOHPACK's Huffman decoder on
    # NIOCore's ByteBuffer counts for HPACK, not for the event loop.
    huffman = "$s7NIOCore10ByteBufferV8NIOHPACKE23getHuffmanEncodedString2at6lengthSSSi_SitKFSiSrys5UInt8"
    assert perf_stages.frame_name(huffman) == "NIOHPACK.ByteBuffer"
    assert perf_stages.stage_of([huffman]) == "HPACK (NIOHPACK)"
    # A method whose signature follows its name is not an extension.
    assert perf_stages.frame_name("$s7NIOCore10ByteBufferV8readableSivg") == "NIOCore.ByteBuffer"
    assert perf_stages.frame_name("$s7NIOCore10ByteBufferV023_setBytesAssumingUniqueC6Access_2atySW_s6UInt32VtF") \
        == "NIOCore.ByteBuffer"


def test_a_sample_goes_to_the_first_frame_that_names_a_stage_else_to_its_leaf():
    stage = perf_stages.stage_of
    assert stage(["swift_retain", "$s8NIOHTTP223HTTP2StreamStateMachineV14receive", "$s8NIOPosix19SelectableEventLoopC3run"]) \
        == "HTTP/2 framing (NIOHTTP2, the connection handler)"
    assert stage(["malloc", "$s10HeraldCore13PushValidatorO8validate"]) == "payload parse and validate"
    assert stage(["copy_folio_from_iter_atomic", "generic_perform_write", "vfs_write"]) \
        == "commit: WAL write + fsync (kernel)"
    assert stage(["sqlite3VdbeExec", "[unknown]"]) == "SQLite (B-trees, records, WAL frames)"
    assert stage(["_int_malloc", "[unknown]"]) == "allocator (malloc, free), caller unknown"
    assert stage(["[unknown]", "[unknown]"]) == perf_stages.OTHER


def test_perf_stages_names_sqlites_static_functions_and_gives_a_sample_to_its_nearest_stage():
    stages = perf_stages
    assert stages.frame_symbol("[unknown] (/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6)") == "sqlite3[static]"
    assert stages.frame_symbol("[unknown] ([unknown])") == "[unknown]"
    assert stages.frame_symbol("fdatasync (/usr/lib/x86_64-linux-gnu/libc.so.6)") == "fdatasync"
    # Leaf first: a malloc under SQLite is SQLite's; an fsync under SQLite is the commit's.
    assert stages.stage_of(["malloc", "sqlite3[static]", "$s4GRDB9StatementC7executeyyF"]) == "SQLite (B-trees, records, WAL frames)"
    assert stages.stage_of(["fdatasync", "sqlite3[static]"]) == "commit: WAL write + fsync (kernel)"
    assert stages.stage_of(["swift_retain", "$s4GRDB9StatementC7executeyyF"]) == "store code (GRDB, Herald's rows and bindings)"
    assert stages.stage_of(["[unknown]", "[unknown]"]) == stages.OTHER


def test_the_server_names_its_store_threads_as_the_profile_tools_look_for_them(herald):
    """scripts/profile-push, scripts/bench and perf-stages.py find the store's writer and checkpoint threads by
    their names: Linux takes a thread's name only from the thread itself, in at most 15 bytes."""
    from herald_support import database_engine
    tasks = Path(f"/proc/{herald.server.proc.pid}/task")

    def names() -> set[str]:
        found = set()
        for task in tasks.iterdir():
            try:
                found.add((task / "comm").read_text().strip())
            except FileNotFoundError:  # a thread that ended meanwhile
                pass
        return found

    expected = {"herald-writer"} | ({"herald-ckpt"} if database_engine() == "sqlite" else set())
    # The server answers before its services have all started their threads: with the whole suite at
    # once on two cores, the writer's thread was not there yet when a fresh-clone run looked.
    deadline = time.monotonic() + 30
    while not expected <= names() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert expected <= names(), f"thread names: {sorted(names())}"
