"""A real MCP client (the official Python SDK, package `mcp`) for the tests.

    client.py http URL [HEADER=VALUE ...]      < calls.json
    client.py stdio COMMAND [ARG ...]          < calls.json

Reads a JSON list of tool calls, [{"tool": NAME, "arguments": {...}}, ...],
from stdin; connects; initializes; lists the tools; makes each call in order;
prints one JSON object to stdout: {"server_info", "instructions", "tools",
"results": [{"tool", "is_error", "structured", "text"}]}. tests/api/mcp.rs
drives it and compares every result with the REST response for the same input.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def exchange(session, calls):
    init = await session.initialize()
    listed = await session.list_tools()
    results = []
    for call in calls:
        result = await session.call_tool(call["tool"], call.get("arguments") or {})
        results.append(
            {
                "tool": call["tool"],
                "is_error": bool(result.is_error),
                "structured": result.structured_content,
                "text": " ".join(getattr(c, "text", "") for c in result.content),
            }
        )
    return {
        "server_info": {"name": init.server_info.name, "version": init.server_info.version},
        "instructions": init.instructions,
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in listed.tools
        ],
        "results": results,
    }


async def main():
    mode, target, *rest = sys.argv[1:]
    calls = json.load(sys.stdin)
    if mode == "http":
        headers = dict(item.split("=", 1) for item in rest)
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(target, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    out = await exchange(session, calls)
    elif mode == "stdio":
        params = StdioServerParameters(command=target, args=rest)
        async with stdio_client(params) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                out = await exchange(session, calls)
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(out, sys.stdout)


asyncio.run(main())
