//! `am mcp`: the Model Context Protocol over stdio (rmcp), and the same
//! server over streamable HTTP at `am serve`'s `/mcp`. A curated set of
//! tools an agent uses, each one verb of the table (its description the
//! table's summary, its input schema the verb's argument schema), and one
//! `exec` tool that reaches every other op of the table.

use super::home::{Flags, Homes, Place, Served};
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// Serve one home to an agent over MCP on stdio (docs/server.md, "MCP").
#[derive(Debug, clap::Args)]
pub struct McpCmd {
    /// The SQLite home (created when missing).
    #[arg(long)]
    home: PathBuf,
    /// The owner id a tool call that takes one and names none writes and
    /// reads under.
    #[arg(long, value_name = "ID")]
    owner: Option<String>,
}

/// One curated tool: its name, the op it calls, and what it adds to the
/// table's summary.
#[derive(Debug, Clone, Copy)]
pub struct Curated {
    /// The tool's name.
    pub tool: &'static str,
    /// The verb it calls.
    pub op: &'static str,
    /// What the tool is for, beside the verb's own summary.
    pub note: &'static str,
}

/// The curated tools, in the order `tools/list` gives them.
pub const CURATED: &[Curated] = &[
    Curated {
        tool: "remember",
        op: "remember",
        note: "Form one memory (a record with kind, title and digest) in a scope.",
    },
    Curated {
        tool: "recall",
        op: "reconstruct",
        note: "Recall what is relevant to a cue (the hybrid retrieval profile unless the call names one); \
               pass a trace_id to commit what you used afterwards.",
    },
    Curated {
        tool: "commit_used",
        op: "commit_selection",
        note: "After a recall, commit the record ids you actually used.",
    },
    Curated {
        tool: "close_record",
        op: "close_record",
        note: "Close a memory that no longer holds, with the reason.",
    },
    Curated {
        tool: "read_card",
        op: "entity_card",
        note: "Read the entity's identity card.",
    },
    Curated {
        tool: "write_diary",
        op: "remember",
        note: "Write a diary entry: a record of kind \"diary\" in scope \"diary\", its provenance.source \
               \"owner-direct\" and attributes.diary_type one of note, idea, commitment, reflection, \
               question, problem.",
    },
    Curated {
        tool: "read_diary",
        op: "recent_records",
        note: "Read the diary: the records formed since an instant in scopes [[\"diary\", owner]].",
    },
    Curated {
        tool: "probe",
        op: "probe",
        note: "Reach deliberately beyond the usual recall (a wider, budgeted search) and say why; answers what \
               was found and where.",
    },
    Curated {
        tool: "situate",
        op: "situate",
        note: "Place yourself at a moment (a time, a journal seq, or a first or last encounter with a \
               participant): what was known, felt and open then.",
    },
    Curated {
        tool: "list_tasks",
        op: "tasks.tasks",
        note: "List the home's memory tasks (filter by status, kind, target).",
    },
    Curated {
        tool: "settle_task",
        op: "tasks.ack",
        note: "Settle leased tasks: mark them done with their result.",
    },
];

/// The MCP server over one served home.
#[derive(Clone)]
pub struct AmMcp {
    served: Arc<Served>,
    owner: Option<String>,
}

impl AmMcp {
    /// The tools over `served`; a call that takes an `owner_id` and names
    /// none uses `owner`.
    pub fn new(served: Arc<Served>, owner: Option<String>) -> AmMcp {
        AmMcp { served, owner }
    }
}

fn schema_object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The tools `tools/list` answers: the curated ones, then `exec`.
pub fn tools() -> Vec<Tool> {
    let mut out = Vec::new();
    for c in CURATED {
        let Some(verb) = am_ops::find(c.op) else {
            continue;
        };
        let description = format!("{} {} (op {})", c.note, verb.summary, verb.name);
        let schema = schema_object(verb.args_schema().to_value());
        let mut tool = Tool::new(c.tool, description, Arc::new(schema));
        tool.output_schema = None;
        out.push(tool);
    }
    let ops: Vec<&str> = am_ops::op_names()
        .filter(|o| !matches!(*o, "clock" | "reopen"))
        .collect();
    let exec_schema = json!({
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ops, "description": "the verb (am exec --list-ops; its arguments: am exec --schema OP)"},
            "args": {"type": "object", "description": "the op's arguments, keyword for keyword (docs/exec.md)"}
        },
        "required": ["op"],
        "additionalProperties": false
    });
    out.push(Tool::new(
        "exec",
        "Run any op of the verb table with its JSON arguments (for operators; the curated tools cover an \
         agent's day).",
        Arc::new(schema_object(exec_schema)),
    ));
    out
}

impl AmMcp {
    /// The op and arguments a tool call runs.
    fn resolve(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<(String, Map<String, Value>), String> {
        if name == "exec" {
            let mut args = args;
            let op = match args.remove("op") {
                Some(Value::String(op)) => op,
                other => return Err(format!("exec needs \"op\": a verb name, got {other:?}")),
            };
            let inner = match args.remove("args") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m,
                Some(other) => {
                    return Err(format!("exec's \"args\" is a JSON object, got {other}"));
                }
            };
            if let Some(k) = args.keys().next() {
                return Err(format!("exec takes \"op\" and \"args\", not {k:?}"));
            }
            return Ok((op, inner));
        }
        let c = CURATED
            .iter()
            .find(|c| c.tool == name)
            .ok_or_else(|| format!("unknown tool {name:?}"))?;
        let mut args = args;
        let verb = am_ops::find(c.op).ok_or_else(|| format!("the table has no op {}", c.op))?;
        let takes = |k: &str| {
            verb.args_schema()
                .as_value()
                .get("properties")
                .and_then(|p| p.get(k))
                .is_some()
        };
        if let Some(owner) = &self.owner
            && takes("owner_id")
            && args.get("owner_id").is_none_or(Value::is_null)
        {
            args.insert("owner_id".into(), json!(owner));
        }
        // The recall tool runs the hybrid profile unless the call names one
        // (whatever profile the home was opened with).
        if c.tool == "recall" && args.get("profile").is_none_or(Value::is_null) {
            args.insert("profile".into(), json!("hybrid"));
        }
        if c.tool == "write_diary" && !args.contains_key("scope") {
            args.insert("scope".into(), json!("diary"));
        }
        Ok((c.op.to_owned(), args))
    }
}

impl ServerHandler for AmMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("abstractmemory-rs", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "AbstractMemory: durable agent memory. remember forms a memory; recall finds what is relevant \
                 and commit_used strengthens what you used; read_card is who you are; exec reaches every other \
                 op of the verb table.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let (op, args) = match self.resolve(&request.name, args) {
            Ok(x) => x,
            Err(m) => return Err(ErrorData::invalid_params(m, None)),
        };
        let served = Arc::clone(&self.served);
        let answer = super::pool::run(move || {
            let r = served.call(&op, args);
            (op, r)
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?;
        let result = match answer {
            (op, Ok(a)) => {
                let body = json!({"op": op, "ok": a.value, "warnings": a.warnings});
                CallToolResult::success(vec![ContentBlock::text(body.to_string())])
            }
            (op, Err(e)) => {
                let body =
                    json!({"op": op, "error": {"kind": e.kind.name(), "message": e.message}});
                CallToolResult::error(vec![ContentBlock::text(body.to_string())])
            }
        };
        Ok(result.into())
    }
}

impl McpCmd {
    /// Serve until the client closes stdin.
    ///
    /// # Errors
    /// Bad input for an unusable home; a failure of the transport.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        // The one home is named internally; its file may have any name.
        let name = "home".to_owned();
        let homes = Homes::new(
            Place::One {
                name: name.clone(),
                path: self.home.clone(),
            },
            ctx.clone(),
            crate::eval::Profile::Hybrid.config(),
            Flags::default(),
        );
        let served = homes.get(&name, true).map_err(|e| {
            CliError::engine(
                e.kind,
                format!("--home {}: {}", self.home.display(), e.message),
            )
        })?;
        let server = AmMcp::new(served, self.owner);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| CliError::failure(format!("cannot start the runtime: {e}")))?;
        rt.block_on(async move {
            let running = server
                .serve(rmcp::transport::stdio())
                .await
                .map_err(|e| CliError::failure(format!("mcp: the session did not start: {e}")))?;
            running
                .waiting()
                .await
                .map_err(|e| CliError::failure(format!("mcp: {e}")))?;
            Ok(0)
        })
    }
}
