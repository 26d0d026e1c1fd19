//! The host's hooks: what a spec verb can take beside its JSON arguments
//! (the `author` callable, `should_continue` / `cancelled`, a progress sink)
//! and what a host gives when it opens a home (an embedder object, a commit
//! guard). `am exec` builds one from a line's scripted hooks
//! ([`Host::scripted`]); the Python package's real callables and the
//! servers' cancellation make others.

use crate::author::ScriptedAuthor;
use crate::error::{OpError, OpResult};
use am_system::Author;
use am_triples::{CommitGuard, JsonMap, TextEmbedder};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A hook a verb takes beside its arguments (declared in its table entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// The `author` callable (spec api.md "Authored with the record").
    Author,
    /// `should_continue` / `cancelled`, checked at a pass's sub-phase boundaries.
    Cancel,
    /// An embedder object passed as the verb's `embedder` argument
    /// (`reembed_store`'s new space) by a host with objects (Python,
    /// [`Host::embedder_arg`]); a JSON call names the embedder by the front
    /// end's spec in the argument itself, which the verb reads.
    Embedder,
}

impl Hook {
    /// The argument that carries the hook's scripted form in a JSON call.
    pub const fn argument(self) -> &'static str {
        match self {
            Hook::Author => "author",
            Hook::Cancel => "cancel_after",
            Hook::Embedder => "embedder",
        }
    }
}

/// A predicate hook (`should_continue`, `cancelled`).
pub type Predicate = Arc<dyn Fn() -> bool + Send + Sync>;

/// A progress sink: a long pass reports each phase it completes.
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

/// The host's hooks for one call (every field optional; `Host::default()`
/// is a host that hooks nothing).
#[derive(Clone, Default)]
pub struct Host {
    /// The `author` callable.
    pub author: Option<Arc<dyn Author>>,
    /// `should_continue()`: false stops a pass at its next boundary.
    pub should_continue: Option<Predicate>,
    /// `cancelled()`: true stops a pass at its next boundary.
    pub cancelled: Option<Predicate>,
    /// Told the name of each phase a pass completes.
    pub progress: Option<Progress>,
    /// The embedder object a home is opened with.
    pub embedder: Option<Arc<dyn TextEmbedder>>,
    /// The commit guard a home's writes call before each COMMIT.
    pub commit_guard: Option<CommitGuard>,
    /// The embedder object this call passes as its `embedder` argument
    /// (a verb declaring [`Hook::Embedder`]: `reembed_store`'s new space),
    /// where the host has objects; [`crate::dispatch`] refuses it for any
    /// other verb.
    pub embedder_arg: Option<Arc<dyn TextEmbedder>>,
    scripted_author: Option<Arc<ScriptedAuthor>>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("author", &self.author.is_some())
            .field("should_continue", &self.should_continue.is_some())
            .field("cancelled", &self.cancelled.is_some())
            .field("progress", &self.progress.is_some())
            .field("embedder", &self.embedder.is_some())
            .field("commit_guard", &self.commit_guard.is_some())
            .field("embedder_arg", &self.embedder_arg.is_some())
            .finish()
    }
}

impl Host {
    /// The same host with the scripted hooks of a JSON call taken out of
    /// `args`: for each hook the verb declares, its argument (`author`: an
    /// array of the callable's answers, exec/author; `cancel_after`: the name
    /// of the phase after which `cancelled()` turns true). A hook argument of
    /// a verb that does not declare the hook stays in `args` (and is refused
    /// there as an argument the verb does not take).
    ///
    /// # Errors
    /// `InvalidInput` for a malformed scripted hook.
    pub fn scripted(&self, op: &str, hooks: &[Hook], args: &mut JsonMap) -> OpResult<Host> {
        let mut host = self.clone();
        for hook in hooks {
            if *hook == Hook::Embedder {
                // Its JSON form is the verb's own argument (an embedder
                // spec): it stays for the verb to read.
                continue;
            }
            let Some(v) = args.remove(hook.argument()).filter(|v| !v.is_null()) else {
                continue;
            };
            match hook {
                Hook::Author => {
                    let author = Arc::new(ScriptedAuthor::from_value(op, v)?);
                    host.author = Some(author.clone() as Arc<dyn Author>);
                    host.scripted_author = Some(author);
                }
                Hook::Cancel => {
                    let Value::String(phase) = v else {
                        return Err(OpError::invalid(format!(
                            "{op}: argument cancel_after is the name of the phase after which the pass is cancelled, got {v}"
                        )));
                    };
                    host = host.cancel_after(&phase);
                }
                Hook::Embedder => {}
            }
        }
        Ok(host)
    }

    /// The same host, cancelled once a pass has reported `phase` complete
    /// through [`Host::phase_done`]: `cancelled()` turns true and
    /// `should_continue()` false from then on. The host's own hooks still
    /// count: the call stops at whichever comes first.
    #[must_use]
    pub fn cancel_after(mut self, phase: &str) -> Host {
        let flag = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let (f1, f2, f3) = (flag.clone(), flag.clone(), flag);
        let phase = phase.to_owned();
        let before = self.progress.take();
        self.progress = Some(Arc::new(move |done: &str| {
            seen.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(done.to_owned());
            if done == phase {
                f1.store(true, Ordering::SeqCst);
            }
            if let Some(p) = &before {
                p(done);
            }
        }));
        // The scripted stop joins the host's own hooks, never replaces them: a
        // server's shutdown or a job's cancel still reaches a scripted call.
        let (cancelled, should_continue) = (self.cancelled.take(), self.should_continue.take());
        self.cancelled = Some(Arc::new(move || {
            f2.load(Ordering::SeqCst) || cancelled.as_ref().is_some_and(|f| f())
        }));
        self.should_continue = Some(Arc::new(move || {
            !f3.load(Ordering::SeqCst) && should_continue.as_ref().is_none_or(|f| f())
        }));
        self
    }

    /// A pass reports that `phase` completed.
    pub fn phase_done(&self, phase: &str) {
        if let Some(p) = &self.progress {
            p(phase);
        }
    }

    /// Whether a pass goes on: `should_continue()` is not false and
    /// `cancelled()` is not true (a host without them always goes on).
    pub fn goes_on(&self) -> bool {
        self.should_continue.as_ref().is_none_or(|f| f())
            && !self.cancelled.as_ref().is_some_and(|f| f())
    }

    /// The warning a call's scripted author leaves when answers went unused.
    pub fn leftover_warning(&self, op: &str) -> Option<String> {
        let unused = self.scripted_author.as_ref().map(|a| a.unused())?;
        (unused > 0).then(|| {
            format!(
                "{op}: {unused} answer(s) of the line's author were not used (the engine asks once per unnamed item not yet formed)"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_scripted_cancel_after_cancels_once_its_phase_is_done_and_not_before() {
        let mut args: JsonMap = json!({"cancel_after": "maintenance", "x": 1})
            .as_object()
            .cloned()
            .unwrap();
        let host = Host::default()
            .scripted("sleep_pass", &[Hook::Cancel], &mut args)
            .unwrap();
        assert!(!args.contains_key("cancel_after"), "the hook is taken out");
        assert!(args.contains_key("x"), "the arguments stay");
        assert!(host.goes_on());
        host.phase_done("resolution");
        assert!(host.goes_on(), "another phase does not cancel");
        host.phase_done("maintenance");
        assert!(!host.goes_on());
        assert!(host.cancelled.as_ref().unwrap()());
        assert!(!host.should_continue.as_ref().unwrap()());
    }

    #[test]
    fn a_scripted_cancel_after_keeps_the_hosts_own_cancel() {
        let stop = Arc::new(AtomicBool::new(false));
        let (s1, s2) = (stop.clone(), stop.clone());
        let host = Host {
            cancelled: Some(Arc::new(move || s1.load(Ordering::SeqCst))),
            should_continue: Some(Arc::new(move || !s2.load(Ordering::SeqCst))),
            ..Host::default()
        };
        let mut args: JsonMap = json!({"cancel_after": "dream"})
            .as_object()
            .cloned()
            .unwrap();
        let host = host
            .scripted("sleep_pass", &[Hook::Cancel], &mut args)
            .unwrap();
        assert!(host.goes_on());
        stop.store(true, Ordering::SeqCst);
        assert!(
            !host.goes_on(),
            "the server's stop reaches a call that scripts cancel_after"
        );
        assert!(host.cancelled.as_ref().unwrap()());
        assert!(!host.should_continue.as_ref().unwrap()());
    }

    #[test]
    fn a_hook_argument_of_a_verb_without_the_hook_stays_for_the_refusal() {
        let mut args: JsonMap = json!({"author": []}).as_object().cloned().unwrap();
        let host = Host::default().scripted("retitle", &[], &mut args).unwrap();
        assert!(args.contains_key("author"));
        assert!(host.author.is_none());
    }

    #[test]
    fn a_malformed_scripted_hook_is_refused_naming_it() {
        let mut args: JsonMap = json!({"cancel_after": 3}).as_object().cloned().unwrap();
        let e = Host::default()
            .scripted("sleep_pass", &[Hook::Cancel], &mut args)
            .unwrap_err();
        assert!(e.message.contains("cancel_after"), "{e}");
        let mut args: JsonMap = json!({"author": "x"}).as_object().cloned().unwrap();
        let e = Host::default()
            .scripted("engram", &[Hook::Author], &mut args)
            .unwrap_err();
        assert!(e.message.contains("author"), "{e}");
    }

    #[test]
    fn a_scripted_author_with_answers_left_names_them_in_a_warning() {
        let mut args: JsonMap = json!({"author": [{"raises": {"error_class": "X"}}]})
            .as_object()
            .cloned()
            .unwrap();
        let host = Host::default()
            .scripted("engram", &[Hook::Author], &mut args)
            .unwrap();
        let w = host.leftover_warning("engram").expect("one answer unused");
        assert!(w.starts_with("engram: 1 answer(s)"), "{w}");
    }
}
