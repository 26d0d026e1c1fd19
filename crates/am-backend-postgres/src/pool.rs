//! A small connection pool: idle clients kept in a `Mutex<Vec<Client>>`, a
//! new connection opened when none is idle, a client handed back on drop
//! unless its connection broke.

use postgres::{Client, Config, NoTls};
use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

/// How many idle connections a pool keeps; more are closed when handed back.
const MAX_IDLE: usize = 8;

/// The connections of one store.
pub(crate) struct Pool {
    config: Config,
    idle: Mutex<Vec<Client>>,
}

impl Pool {
    pub(crate) fn new(config: Config) -> Self {
        Pool {
            config,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Client>> {
        // The vector holds whole clients only: a panic elsewhere cannot tear it.
        self.idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An idle connection, or a new one.
    pub(crate) fn get(&self) -> Result<Pooled<'_>, postgres::Error> {
        let reused = loop {
            let Some(c) = self.idle().pop() else {
                break None;
            };
            if !c.is_closed() {
                break Some(c);
            }
        };
        let client = match reused {
            Some(c) => c,
            None => self.config.connect(NoTls)?,
        };
        Ok(Pooled {
            pool: self,
            client: Some(client),
        })
    }

    /// Close every idle connection.
    pub(crate) fn clear(&self) {
        self.idle().clear();
    }
}

/// A connection borrowed from a [`Pool`].
pub(crate) struct Pooled<'a> {
    pool: &'a Pool,
    client: Option<Client>,
}

impl Deref for Pooled<'_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.client.take()
            && !c.is_closed()
        {
            let mut idle = self.pool.idle();
            if idle.len() < MAX_IDLE {
                idle.push(c);
            }
        }
    }
}
