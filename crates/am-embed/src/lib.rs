//! Embedders for AbstractMemory (not yet built): `OpenAICompatTextEmbedder`,
//! `AbstractGatewayTextEmbedder` and the offline potion-base-2M default, each
//! implementing `am_triples::TextEmbedder` and reporting its model id and dimension
//! so stores pin the embedding space at creation.
//!
//! Spec: api.md "Embedders"; stores.md "Embedding-space pin".
