// The only place a trace or parameter name is composed or split. A name is a label: what a
// step is and where it sits travel in TraceEntry's fields (op, block, role, inputs).
//
//   encoder.src_emb.out, encoder.pos_emb.{pe,out}, encoder.self_attn_mask      Block{Encoder, Input}
//   encoder.layers.{i}.enc_self_attn.{Q,K,...,out}                              Block{Encoder, SelfAttention, i}
//   decoder.layers.{i}.dec_self_attn.* / .dec_enc_attn.* / .pos_ffn.*           MaskedSelfAttention / CrossAttention / FeedForward
//   projection.{logits,probs}, loss, loss.per_token                             Projection / Loss
//   grad.<name>                                                                 the gradient of <name>
//
// PyTorch's layers (Block::naming, "architecture": "torch"; docs/contracts.md), a layer L being
// encoder_layer / decoder_layer (the layer lab) or transformer.{encoder,decoder}.layers.{i}:
//   L.self_attn.{Q,K,V,mask,scores,masked_scores,attn,context,out_proj}         the layer's attention blocks
//   L.multihead_attn.*                                                          (decoder) CrossAttention
//   L.{add1,norm1,...}                                                          the block of sub-layer 1, 2, 3
//   L.{linear1,activation,linear2}                                              FeedForward
//   src, tgt (the layer lab's inputs); src_tok_emb.out, src_positional_encoding.{pe,out}, tgt_*  Input
//   transformer.{encoder,decoder}.norm.out                                      FinalNorm
//   generator.{logits,probs}                                                    Projection
#pragma once

#include <string>
#include <string_view>

#include "stepformer/trace.h"

namespace stepformer::names {

// "encoder.layers.0.enc_self_attn", "decoder" (a stack's input), "projection", "loss".
std::string block_prefix(const Block& b);
// block_prefix + "." + leaf; the loss block's own entry is "loss" (leaf "").
std::string entry(const Block& b, std::string_view leaf);
// The name of a layer block's entry in every layer at once, the layer's index a "*":
// "decoder.layers.*.dec_enc_attn.attn", "decoder.layer_stack.*.enc_attn.attn". A block outside
// the layers: entry().
std::string every_layer(const Block& b, std::string_view leaf);
// A parameter of a block: "encoder.layers.0.enc_self_attn.W_Q.weight", "decoder.tgt_emb.weight".
std::string param(const Block& b, std::string_view leaf);

// The tutorial's attribute name of a layer's block ("enc_self_attn", "dec_self_attn",
// "dec_enc_attn", "pos_ffn"): a label a viewer may print; "" for other kinds. And back.
std::string block_word(BlockKind k);
BlockKind block_kind_of_word(std::string_view word);

std::string grad(std::string_view name);          // "grad." + name
bool is_grad(std::string_view name);
std::string forward_name(std::string_view name);  // without "grad."

struct Parsed {
    bool grad = false;
    std::string base;  // without "grad."
    Block block;       // Block{} when the name is not a model's
    std::string leaf;  // "scores", "src_emb.out", "self_attn_mask", "" for "loss"
};
Parsed parse(std::string_view name);

// A stack's input block: the embedding's output, its table (a parameter) and the sum with the
// positional encoding that the first layer reads.
std::string embedding_out(Stack s);    // encoder.src_emb.out / decoder.tgt_emb.out
std::string embedding_table(Stack s);  // encoder.src_emb.weight / decoder.tgt_emb.weight
std::string stack_input(Stack s);      // encoder.pos_emb.out / decoder.pos_emb.out

}  // namespace stepformer::names
