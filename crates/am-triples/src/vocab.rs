//! Closed vocabularies: the [`vocabulary!`](crate::vocabulary) macro that makes
//! a spec's list of wire names a `#[non_exhaustive]` enum.
//!
//! Each generated enum has its wire names (`as_str`, `NAMES`, `Display`),
//! one parser (`parse`, refusing any other name with `InvalidInput` naming the
//! vocabulary and what arrived), `FromStr`, serde through the wire name, so
//! a struct field of the enum reads and writes the spec's JSON, and a
//! `schemars::JsonSchema` stating that wire: a string enum of the names. Each vocabulary
//! is defined once, in the lowest crate that needs it.
//!
//! An argument the spec's dataclasses fold before they check it
//! (`str(v).strip().lower()`: a binding's states, a closure's kind, a
//! record's kind) reads through [`folded`] or [`folded_or_default`]
//! (`#[serde(deserialize_with = "am_triples::vocab::folded")]`), so the
//! wire keeps accepting `" Hidden "`; the enum's own serde is exact.

/// Define a closed vocabulary as a `#[non_exhaustive]` enum with wire names.
///
/// ```
/// am_triples::vocabulary! {
///     /// A colour.
///     pub enum Colour("colour") {
///         /// Red.
///         Red = "red",
///         /// Dark blue.
///         DarkBlue = "dark_blue",
///     }
/// }
/// assert_eq!(Colour::parse("dark_blue").unwrap(), Colour::DarkBlue);
/// assert_eq!(Colour::Red.as_str(), "red");
/// assert_eq!(serde_json::to_string(&Colour::DarkBlue).unwrap(), "\"dark_blue\"");
/// assert_eq!(Colour::NAMES, ["red", "dark_blue"]);
/// assert_eq!(
///     Colour::parse("green").unwrap_err().to_string(),
///     "invalid input: colour must be one of [\"red\", \"dark_blue\"], got \"green\""
/// );
/// ```
#[macro_export]
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every member, in the order of [`NAMES`](Self::NAMES).
            pub const ALL: [$name; [$($wire),+].len()] = [$($name::$variant),+];
            /// Every wire name, in the order the spec's messages list them.
            pub const NAMES: [&'static str; [$($wire),+].len()] = [$($wire),+];

            /// The wire name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire),+
                }
            }

            /// Parse a wire name (exactly; callers that accept other spellings
            /// trim or fold first).
            ///
            /// # Errors
            /// `InvalidInput` naming the vocabulary's names and what arrived.
            pub fn parse(name: &str) -> $crate::Result<$name> {
                match name {
                    $($wire => Ok($name::$variant),)+
                    other => Err($crate::Error::invalid(format!(
                        "{} must be one of {:?}, got {:?}",
                        $what,
                        $name::NAMES,
                        other
                    ))),
                }
            }

            /// Parse a name as the spec's dataclasses read one: trimmed and
            /// lowercased first.
            ///
            /// # Errors
            /// `InvalidInput` naming the vocabulary's names and the name as
            /// it arrived.
            pub fn parse_folded(name: &str) -> $crate::Result<$name> {
                $name::parse(&name.trim().to_lowercase()).map_err(|_| {
                    $crate::Error::invalid(format!(
                        "{} must be one of {:?}, got {:?}",
                        $what,
                        $name::NAMES,
                        name
                    ))
                })
            }
        }

        impl $crate::vocab::Folded for $name {
            fn parse_folded(name: &str) -> $crate::Result<$name> {
                $name::parse_folded(name)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(s: &str) -> $crate::Result<$name> {
                $name::parse(s)
            }
        }

        impl $crate::vocab::__serde::Serialize for $name {
            fn serialize<S: $crate::vocab::__serde::Serializer>(
                &self,
                s: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::vocab::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::vocab::__serde::Deserializer<'de>>(
                d: D,
            ) -> ::std::result::Result<$name, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as $crate::vocab::__serde::Deserialize>::deserialize(d)?;
                $name::parse(&s).map_err(|e| {
                    <D::Error as $crate::vocab::__serde::de::Error>::custom(e.message())
                })
            }
        }

        impl $crate::vocab::__schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(concat!(module_path!(), "::", stringify!($name)))
            }

            fn json_schema(
                _: &mut $crate::vocab::__schemars::SchemaGenerator,
            ) -> $crate::vocab::__schemars::Schema {
                $crate::vocab::__schemars::json_schema!({
                    "type": "string",
                    "enum": $name::NAMES,
                    "description": concat!("A ", $what, ": one of its wire names."),
                })
            }
        }
    };
}

/// A [`vocabulary!`](crate::vocabulary) enum read from a folded name (what
/// [`folded`] and [`folded_or_default`] need).
pub trait Folded: Sized {
    /// The member `name` names once trimmed and lowercased.
    ///
    /// # Errors
    /// `InvalidInput` naming the vocabulary's names and the name as it arrived.
    fn parse_folded(name: &str) -> crate::Result<Self>;
}

/// Deserialize a vocabulary field from a name trimmed and lowercased first
/// (`#[serde(deserialize_with = "am_triples::vocab::folded")]`).
///
/// # Errors
/// A custom error: the vocabulary's refusal (its names and the name as it
/// arrived).
pub fn folded<'de, D, V>(d: D) -> std::result::Result<V, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Folded,
{
    let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
    V::parse_folded(&s).map_err(|e| <D::Error as serde::de::Error>::custom(e.message()))
}

/// [`folded`], a blank name (empty once trimmed) being the field's default
/// (a binding's `lifecycle` `none`, its `source` `operator`).
///
/// # Errors
/// As [`folded`].
pub fn folded_or_default<'de, D, V>(d: D) -> std::result::Result<V, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Folded + Default,
{
    let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
    if s.trim().is_empty() {
        return Ok(V::default());
    }
    V::parse_folded(&s).map_err(|e| <D::Error as serde::de::Error>::custom(e.message()))
}

#[doc(hidden)]
pub use serde as __serde;

#[doc(hidden)]
pub use schemars as __schemars;

#[cfg(test)]
#[allow(
    unreachable_pub,
    reason = "the macro makes public items; this test enum is private to the module"
)]
mod tests {
    crate::vocabulary! {
        /// A test vocabulary (its default `one`).
        #[derive(Default)]
        pub enum Sample("sample") {
            /// One.
            #[default]
            One = "one",
            /// Two words.
            TwoWords = "two_words",
        }
    }

    #[test]
    fn serde_uses_the_wire_names() {
        assert_eq!(
            serde_json::to_string(&Sample::TwoWords).unwrap(),
            "\"two_words\""
        );
        let s: Sample = serde_json::from_str("\"one\"").unwrap();
        assert_eq!(s, Sample::One);
        let e = serde_json::from_str::<Sample>("\"three\"").unwrap_err();
        assert!(e.to_string().contains("sample must be one of"), "{e}");
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Args {
        #[serde(deserialize_with = "super::folded")]
        sample: Sample,
    }

    #[test]
    fn a_folded_field_reads_a_name_trimmed_and_lowercased_and_refuses_the_rest_as_it_arrived() {
        let a: Args = serde_json::from_str(r#"{"sample": " Two_Words "}"#).unwrap();
        assert_eq!(a.sample, Sample::TwoWords);
        let e = serde_json::from_str::<Args>(r#"{"sample": " Three "}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"sample must be one of ["one", "two_words"], got " Three ""#),
            "{e}"
        );
        assert!(serde_json::from_str::<Args>(r#"{"sample": ""}"#).is_err());
        assert_eq!(Sample::parse_folded("ONE").unwrap(), Sample::One);
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Defaulted {
        #[serde(deserialize_with = "super::folded_or_default")]
        sample: Sample,
    }

    #[test]
    fn a_blank_name_is_the_default_of_a_folded_or_default_field() {
        let a: Defaulted = serde_json::from_str(r#"{"sample": "  "}"#).unwrap();
        assert_eq!(a.sample, Sample::One);
        let a: Defaulted = serde_json::from_str(r#"{"sample": "TWO_WORDS"}"#).unwrap();
        assert_eq!(a.sample, Sample::TwoWords);
        assert!(serde_json::from_str::<Defaulted>(r#"{"sample": "three"}"#).is_err());
    }

    #[test]
    fn every_name_round_trips() {
        for (v, n) in Sample::ALL.iter().zip(Sample::NAMES) {
            assert_eq!(v.as_str(), n);
            assert_eq!(Sample::parse(n).unwrap(), *v);
        }
    }
}
