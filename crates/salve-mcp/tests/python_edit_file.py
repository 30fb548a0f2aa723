"""Drive `salve mcp`'s `edit_file` tool with the official MCP Python SDK (PyPI `mcp` 2.x), as an
agent set up for Cursor's `edit_file` (or a hosted apply service) would call it: same name,
same arguments (`target_file`, `instructions`, `code_edit`).

Usage: python_edit_file.py SALVE_BINARY WORK_TREE
The work tree holds `shop.py` (see crates/salve/tests/it/mcp_clients.rs). Prints one JSON object
on stdout: the tool's input schema and the results of four calls (a snippet merged, the same
again, an ambiguous snippet, a snippet cut short). Exits non-zero when anything is not as
expected.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters

SNIPPET = """# ... existing code ...
def total(items):
    # Prices are in cents.
    return sum(item.price * item.count for item in items)
# ... existing code ...
"""

# `return None` stands in both functions: as the only line before the change, either could be meant.
AMBIGUOUS = """# ... existing code ...
        return None
    log("missing")
    log("done")
# ... existing code ...
"""

# No leading marker, but the region starts further down the file: the head would be lost.
CUT = """def total(items):
    return 0
# ... existing code ...
"""


def text_of(result):
    return json.loads(result.content[0].text)


async def main(binary, work_tree):
    params = StdioServerParameters(command=binary, args=["mcp", "-C", work_tree])
    async with Client(params) as client:
        tools = await client.list_tools()
        tool = next(t for t in tools.tools if t.name == "edit_file")
        args = {"target_file": "shop.py", "instructions": "I note that prices are in cents."}
        merged = await client.call_tool("edit_file", dict(args, code_edit=SNIPPET))
        again = await client.call_tool("edit_file", dict(args, code_edit=SNIPPET))
        ambiguous = await client.call_tool("edit_file", dict(args, code_edit=AMBIGUOUS))
        cut = await client.call_tool("edit_file", dict(args, code_edit=CUT))
        report = {
            "schema": tool.input_schema,
            "merged": {"is_error": merged.is_error, "body": text_of(merged)},
            "again": {"is_error": again.is_error, "body": text_of(again)},
            "ambiguous": {"is_error": ambiguous.is_error, "body": text_of(ambiguous)},
            "cut": {"is_error": cut.is_error, "body": text_of(cut)},
        }
    print(json.dumps(report))
    props = report["schema"]["properties"]
    assert set(props) == {"target_file", "instructions", "code_edit"}, report
    assert set(report["schema"]["required"]) == {"target_file", "code_edit"}, report
    assert not merged.is_error, report
    assert report["merged"]["body"]["report"]["outcome"] == "applied", report
    assert report["again"]["body"]["report"]["outcome"] == "already_applied", report
    assert ambiguous.is_error, report
    hunk = report["ambiguous"]["body"]["report"]["files"][0]["hunks"][0]
    assert hunk["status"] == "ambiguous" and len(hunk["candidates"]) == 2, report
    assert cut.is_error, report
    assert report["cut"]["body"]["report"]["files"][0]["hunks"][0]["status"] == "truncated", report


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
