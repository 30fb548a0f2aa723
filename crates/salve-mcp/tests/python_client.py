"""Drive `salve mcp` with the official MCP Python SDK (PyPI `mcp` 2.x), a client nobody here
wrote: connect (the default `auto` mode probes `server/discover`, the 2026-07-28 revision, and
falls back to `initialize`), list the tools, call `apply_edit` and `checkpoint`.

Usage: python_client.py SALVE_BINARY WORK_TREE MODE
MODE is `auto` or `legacy`. Prints one JSON object on stdout: the negotiated protocol version,
the tool names, and the two results. Exits non-zero when anything is not as expected.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters

EDIT = """Rename the greeting:

```diff
--- a/hello.py
+++ b/hello.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return "Hello, " + name
+    return "Good day, " + name
```
"""


def text_of(result):
    return json.loads(result.content[0].text)


async def main(binary, work_tree, mode):
    params = StdioServerParameters(command=binary, args=["mcp", "-C", work_tree])
    async with Client(params, mode=mode) as client:
        tools = await client.list_tools()
        names = sorted(tool.name for tool in tools.tools)
        applied = await client.call_tool("apply_edit", {"edit": EDIT})
        again = await client.call_tool("apply_edit", {"edit": EDIT})
        checkpoint = await client.call_tool("checkpoint", {"message": "from the Python SDK"})
        report = {
            "protocol_version": client.protocol_version,
            "tools": names,
            "apply_edit": {"is_error": applied.is_error, "body": text_of(applied)},
            "apply_edit_again": {"is_error": again.is_error, "body": text_of(again)},
            "checkpoint": {"is_error": checkpoint.is_error, "body": text_of(checkpoint)},
        }
    print(json.dumps(report))
    assert not applied.is_error, report
    assert report["apply_edit"]["body"]["report"]["outcome"] == "applied", report
    assert report["apply_edit_again"]["body"]["report"]["outcome"] == "already_applied", report
    assert not checkpoint.is_error and report["checkpoint"]["body"]["id"], report


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
