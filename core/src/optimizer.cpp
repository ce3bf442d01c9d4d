#include "stepformer/optimizer.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "stepformer/message.h"
#include "stepformer/staging.h"

namespace stepformer {

void OptimizerOptions::validate() const {
    if (!(lr > 0.0) || !std::isfinite(lr) || lr > 100.0)
        throw InvalidArgument(Message(Msg::optimizer_lr, {std::to_string(lr)}));
    if (!(momentum >= 0.0 && momentum < 1.0))
        throw InvalidArgument(Message(Msg::optimizer_momentum, {std::to_string(momentum)}));
    if (!(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0))
        throw InvalidArgument(Message(Msg::optimizer_betas));
    if (!(eps > 0.0)) throw InvalidArgument(Message(Msg::optimizer_eps));
    if (warmup_schedule && warmup_steps <= 0) throw InvalidArgument(Message(Msg::optimizer_warmup));
    // At lr * weight_decay >= 1 a step would zero the weights or flip their sign. Only AdamW's:
    // the others ignore it (SGD at lr 100 with the default 0.1 is fine).
    if (kind == OptimizerKind::AdamW &&
        (!(weight_decay >= 0.0) || !std::isfinite(weight_decay) || !(lr * weight_decay < 1.0)))
        throw InvalidArgument(Message(Msg::optimizer_weight_decay, {std::to_string(weight_decay)}));
}

OptimizerOptions optimizer_defaults(OptimizerKind k) {
    OptimizerOptions o;
    o.kind = k;
    if (k == OptimizerKind::AdamW) {
        // nanoGPT's configure_optimizers (train.py: beta2 0.95, weight_decay 1e-1) and AdamW's eps
        o.beta1 = 0.9;
        o.beta2 = 0.95;
        o.eps = 1e-8;
        o.weight_decay = 0.1;
    }
    return o;
}

std::string optimizer_name(OptimizerKind k) {
    switch (k) {
        case OptimizerKind::SGD: return "sgd";
        case OptimizerKind::Adam: return "adam";
        case OptimizerKind::AdamW: return "adamw";
    }
    return "sgd";
}

OptimizerKind optimizer_from_name(const std::string& name) {
    if (name == "sgd" || name == "SGD") return OptimizerKind::SGD;
    if (name == "adam" || name == "Adam") return OptimizerKind::Adam;
    if (name == "adamw" || name == "AdamW") return OptimizerKind::AdamW;
    throw InvalidArgument(Message(Msg::optimizer_unknown_kind, {name}));
}

std::optional<double> saved_weight_decay(const std::string& state_json) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(state_json);
    } catch (const std::exception& e) {
        throw Error(Message(Msg::optimizer_state_not_json, {e.what()}));
    }
    if (!j.is_object()) throw Error(Message(Msg::optimizer_state_not_object, {j.type_name()}));
    const auto it = j.find("weight_decay");
    if (it == j.end()) return std::nullopt;  // written before AdamW, or by SGD/Adam
    if (!it->is_number() || !(it->get<double>() >= 0.0) || !std::isfinite(it->get<double>()))
        throw Error(Message(Msg::optimizer_state_weight_decay, {it->dump()}));
    return it->get<double>();
}

Optimizer::Optimizer(OptimizerOptions opt, const ParamSet& params) : opt_(opt) {
    opt_.validate();
    for (size_t i = 0; i < params.size(); ++i) {
        names_.push_back(params.name(i));
        shapes_.push_back(params[i].shape);
    }
}

// A spilled state: the tensors of buf1_ then those of buf2_, raw float32, in an anonymous file.
struct Optimizer::Spill {
    std::FILE* file = nullptr;
    Spill() = default;
    Spill(const Spill&) = delete;
    Spill& operator=(const Spill&) = delete;
    ~Spill() {
        if (file) std::fclose(file);
    }
};

// The zero state of a fresh optimizer is allocated when first needed: an optimizer that only
// previews updates (the app's) never holds a copy of the model's size. A spilled one is read back.
void Optimizer::allocate_state() const {
    if (!buf1_.empty()) return;
    for (const Shape& shape : shapes_) {
        buf1_.emplace_back(shape);
        if (two_moments()) buf2_.emplace_back(shape);
    }
    if (!spill_) return;
    std::FILE* f = spill_->file;
    bool ok = std::fseek(f, 0, SEEK_SET) == 0;
    for (auto* bufs : {&buf1_, &buf2_})
        for (Tensor& t : *bufs)
            ok = ok && std::fread(t.ptr(), sizeof(float), t.data.size(), f) == t.data.size();
    if (!ok) {
        buf1_.clear();
        buf2_.clear();
        throw Error(Message(Msg::optimizer_state_spill));
    }
    spill_.reset();
}

void Optimizer::spill_state() {
    if (buf1_.empty()) return;  // a fresh state: zeros, nothing to keep
    auto spill = std::make_shared<Spill>();
    spill->file = std::tmpfile();
    if (!spill->file) return;
    for (const auto* bufs : {&buf1_, &buf2_})
        for (const Tensor& t : *bufs)
            if (std::fwrite(t.ptr(), sizeof(float), t.data.size(), spill->file) != t.data.size()) return;
    if (std::fflush(spill->file) != 0) return;
    spill_ = std::move(spill);
    std::vector<Tensor>().swap(buf1_);
    std::vector<Tensor>().swap(buf2_);
}

double Optimizer::current_lr() const {
    if (opt_.kind == OptimizerKind::SGD || !opt_.warmup_schedule) return opt_.lr;
    const double s = static_cast<double>(step_ + 1);
    return opt_.lr * std::pow(opt_.d_model, -0.5) *
           std::min(std::pow(s, -0.5), s * std::pow(static_cast<double>(opt_.warmup_steps), -1.5));
}

void Optimizer::rewind(int64_t step) {
    if (step < 0 || step > step_) throw std::invalid_argument("Optimizer::rewind: not a step it has made");
    step_ = step;
}

std::vector<Tensor*> Optimizer::mutable_state() {
    allocate_state();
    std::vector<Tensor*> out;
    for (auto* bufs : {&buf1_, &buf2_})
        for (Tensor& t : *bufs) out.push_back(&t);
    return out;
}

void Optimizer::begin_step() {
    allocate_state();
    step_lr_ = current_lr();
    ++step_;
}

WeightUpdate Optimizer::update_spec(size_t i, double lr, int64_t step, float* buf1, float* buf2) const {
    WeightUpdate u;
    u.kind = opt_.kind == OptimizerKind::SGD    ? WeightUpdate::Kind::SGD
             : opt_.kind == OptimizerKind::Adam ? WeightUpdate::Kind::Adam
                                                : WeightUpdate::Kind::AdamW;
    u.buf1 = buf1;
    u.buf2 = two_moments() ? buf2 : nullptr;
    u.lr = lr;
    u.momentum = static_cast<float>(opt_.momentum);
    u.beta1 = opt_.beta1;
    u.beta2 = opt_.beta2;
    u.eps = static_cast<float>(opt_.eps);
    // nanoGPT's configure_optimizers: a parameter of 2 or more dimensions (a weight matrix, an
    // embedding) decays, one of fewer (a bias, a LayerNorm weight) does not.
    u.weight_decay = opt_.kind == OptimizerKind::AdamW && shapes_.at(i).size() >= 2 ? opt_.weight_decay : 0.0;
    u.step = step;
    return u;
}

WeightUpdate Optimizer::weight_update(size_t i) {
    return update_spec(i, step_lr_, step_, buf1_.at(i).ptr(), two_moments() ? buf2_.at(i).ptr() : nullptr);
}

void Optimizer::update(size_t i, Tensor& p, const Tensor& g, Backend& be) {
    Staging st(be);
    update(i, p, g, be, st);
    st.finish();
}

void Optimizer::update(size_t i, Tensor& p, const Tensor& g, Backend& be, Staging& st) {
    const StagedUpdate u = stage_update(st, p.ptr(), p.size(), weight_update(i));
    be.apply_update(u.weight, st.in(g), p.size(), u.update);
}

Tensor Optimizer::preview_update(size_t i, const Tensor& param, const Tensor& grad, Backend& be) const {
    if (spill_) allocate_state();
    // A fresh optimizer's state is zero (the same as an allocated one).
    const bool fresh = buf1_.empty();
    Tensor p = param, b1 = fresh ? Tensor(shapes_.at(i)) : buf1_.at(i),
           b2 = !two_moments() ? Tensor{} : fresh ? Tensor(shapes_.at(i)) : buf2_.at(i);
    // The same kernels as a real step (the next one: its lr and step number), on copies of the state.
    Staging st(be);
    const StagedUpdate u =
        stage_update(st, p.ptr(), p.size(), update_spec(i, current_lr(), step_ + 1, b1.ptr(), b2.ptr()));
    be.apply_update(u.weight, st.in(grad), p.size(), u.update);
    st.finish();
    for (size_t k = 0; k < p.data.size(); ++k) p.data[k] -= param.data[k];
    return p;
}

void Optimizer::step(ParamSet& params, const ParamSet& grads, Backend& be) {
    begin_step();
    Staging st(be);
    for (size_t i = 0; i < params.size(); ++i) update(i, params[i], grads[i], be, st);
    st.finish();
}

std::vector<std::pair<std::string, const Tensor*>> Optimizer::state_tensors() const {
    allocate_state();
    std::vector<std::pair<std::string, const Tensor*>> out;
    for (size_t i = 0; i < names_.size(); ++i) {
        if (opt_.kind == OptimizerKind::SGD) {
            out.emplace_back("optim." + names_[i] + ".momentum_buffer", &buf1_[i]);
        } else {
            out.emplace_back("optim." + names_[i] + ".exp_avg", &buf1_[i]);
            out.emplace_back("optim." + names_[i] + ".exp_avg_sq", &buf2_[i]);
        }
    }
    return out;
}

std::string Optimizer::state_json() const {
    nlohmann::json j{{"kind", optimizer_name(opt_.kind)},
                     {"lr", opt_.lr},
                     {"momentum", opt_.momentum},
                     {"beta1", opt_.beta1},
                     {"beta2", opt_.beta2},
                     {"eps", opt_.eps},
                     {"warmup_schedule", opt_.warmup_schedule},
                     {"warmup_steps", opt_.warmup_steps},
                     {"d_model", opt_.d_model},
                     {"step", step_}};
    // Only AdamW's: SGD and Adam ignore weight_decay, and a value there would read as if applied.
    if (opt_.kind == OptimizerKind::AdamW) j["weight_decay"] = opt_.weight_decay;
    return j.dump();
}

void Optimizer::load_state(const std::string& json, const std::map<std::string, const Tensor*>& tensors) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json);
    } catch (const std::exception& e) {
        throw Error(Message(Msg::optimizer_state_not_json, {e.what()}));
    }
    // A checkpoint is a file from outside: every field checked, every problem a runtime_error
    // that says which (the JSON library's own exceptions name no file and no field).
    if (!j.is_object()) throw Error(Message(Msg::optimizer_state_not_object, {j.type_name()}));
    std::string kind;
    int64_t step = 0;
    try {
        kind = j.value("kind", "");
        step = j.value("step", int64_t{0});
    } catch (const nlohmann::json::exception&) {
        throw Error(Message(Msg::optimizer_state_fields, {j.dump()}));
    }
    // Adam's bias corrections divide by 1 - beta^step: a negative count would make them 0 or negative.
    if (step < 0) throw Error(Message(Msg::optimizer_state_negative_step, {step}));
    // The saved kind is the file's word, not the user's: an unknown one (fuzz_checkpoint found
    // '') is the file's problem, said as such, not optimizer_from_name's "use sgd, adam or adamw".
    const Message wrong_kind(Msg::optimizer_state_kind, {kind, optimizer_name(opt_.kind)});
    try {
        if (optimizer_from_name(kind) != opt_.kind) throw Error(wrong_kind);
    } catch (const InvalidArgument&) {
        throw Error(wrong_kind);
    }
    saved_weight_decay(json);  // checked, not applied: the hyperparameters are this optimizer's
    auto load = [&](const std::string& name, Tensor& dst) {
        auto it = tensors.find(name);
        if (it == tensors.end()) throw Error(Message(Msg::optimizer_state_missing_tensor, {name}));
        if (it->second->shape != dst.shape)
            throw Error(Message(Msg::optimizer_state_shape,
                                {name, shape_to_string(it->second->shape), shape_to_string(dst.shape)}));
        dst = *it->second;
    };
    spill_.reset();  // replaced, not read back
    allocate_state();
    for (size_t i = 0; i < names_.size(); ++i) {
        if (opt_.kind == OptimizerKind::SGD) {
            load("optim." + names_[i] + ".momentum_buffer", buf1_[i]);
        } else {
            load("optim." + names_[i] + ".exp_avg", buf1_[i]);
            load("optim." + names_[i] + ".exp_avg_sq", buf2_[i]);
        }
    }
    step_ = step;
}

}  // namespace stepformer
