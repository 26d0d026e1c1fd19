//! `HashEmbedder`: a small, deterministic, dependency-free bag-of-words embedder
//! for conformance checks (feature hashing with signed buckets).
//!
//! It is a real [`TextEmbedder`]: same text, same vector, on every machine. Checks
//! that need exact vectors give it overrides (`with_override`), and checks of the
//! pin use `anonymous()` to hide its identity.

use am_triples::{Result, TextEmbedder};

/// A hashing bag-of-words embedder of fixed dimension.
///
/// Each lowercase alphanumeric run of the text adds `±1.0` to bucket
/// `fnv1a64(token) % dim` (the sign is the hash's top bit). A text whose buckets
/// cancel out (or that has no token) gets `1.0` in the bucket of its whole-text
/// hash, so the vector is never zero. An override returns its vector verbatim for
/// every text that contains its needle (first match wins), whatever its dimension
/// or values: that is how checks feed zero, NaN or wrong-dimension vectors.
#[derive(Debug, Clone)]
pub struct HashEmbedder {
    dim: usize,
    model_id: String,
    reports_identity: bool,
    overrides: Vec<(String, Vec<f32>)>,
    failing_on: Option<String>,
}

fn fnv1a64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl HashEmbedder {
    /// An embedder of `dim` dimensions (`dim >= 1`) that reports `model_id` and
    /// `dim` as its identity.
    pub fn new(dim: usize, model_id: &str) -> Self {
        HashEmbedder {
            dim: dim.max(1),
            model_id: model_id.to_owned(),
            reports_identity: true,
            overrides: Vec::new(),
            failing_on: None,
        }
    }

    /// The same embedder, reporting neither model id nor dimension.
    pub fn anonymous(mut self) -> Self {
        self.reports_identity = false;
        self
    }

    /// Return `vector` for every text containing `needle`.
    pub fn with_override(mut self, needle: &str, vector: Vec<f32>) -> Self {
        self.overrides.push((needle.to_owned(), vector));
        self
    }

    /// Fail (an `Embedder` error) on any batch holding a text that contains `needle`,
    /// as a remote embedder fails on a transport error.
    pub fn failing_on(mut self, needle: &str) -> Self {
        self.failing_on = Some(needle.to_owned());
        self
    }

    /// The vector of one text.
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        if let Some((_, v)) = self.overrides.iter().find(|(n, _)| text.contains(n)) {
            return v.clone();
        }
        let dim = u64::try_from(self.dim).unwrap_or(1);
        let bucket = |h: u64| usize::try_from(h % dim).unwrap_or(0);
        let mut v = vec![0.0f32; self.dim];
        let lowered = text.to_lowercase();
        for token in lowered
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty())
        {
            let h = fnv1a64(token);
            v[bucket(h)] += if h >> 63 == 1 { -1.0 } else { 1.0 };
        }
        if v.iter().all(|x| *x == 0.0) {
            v[bucket(fnv1a64(text))] = 1.0;
        }
        v
    }
}

impl TextEmbedder for HashEmbedder {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if let Some(needle) = &self.failing_on
            && let Some(t) = texts.iter().find(|t| t.contains(needle.as_str()))
        {
            return Err(am_triples::Error::embedder(format!(
                "hash embedder: expected a text without {needle:?}, got {t:?}"
            )));
        }
        Ok(texts.iter().map(|t| self.embed_one(t)).collect())
    }

    fn model_id(&self) -> Option<String> {
        self.reports_identity.then(|| self.model_id.clone())
    }

    fn dimension(&self) -> Option<usize> {
        self.reports_identity.then_some(self.dim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_same_vector_and_never_zero() {
        let e = HashEmbedder::new(4, "m");
        assert_eq!(
            e.embed_one("alice knows bob"),
            e.embed_one("alice knows bob")
        );
        assert!(e.embed_one("").iter().any(|x| *x != 0.0));
        assert!(e.embed_one("!!!").iter().any(|x| *x != 0.0));
    }

    #[test]
    fn overrides_win_and_anonymous_hides_identity() {
        let e = HashEmbedder::new(4, "m").with_override("zero", vec![0.0; 4]);
        assert_eq!(e.embed_one("a zero b"), vec![0.0; 4]);
        assert_eq!(e.dimension(), Some(4));
        let a = e.anonymous();
        assert_eq!((a.model_id(), a.dimension()), (None, None));
    }
}
