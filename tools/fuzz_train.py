"""The train generator of tools/fuzz_programs.py (``--train``): nn.Module training loops as the
tutorials write them, which the other generators only touch one piece at a time. A script class
subclassing ``nn.Module`` (``Linear``/``Conv1d``/``Conv2d``/``BatchNorm``/``LayerNorm``/``Dropout``/
``Embedding``/``LSTM``/``GRU`` pieces, ``Sequential``, ``ModuleList``); a synthetic data set
(``TensorDataset`` + ``DataLoader`` with ``batch_size``/``shuffle``/``drop_last`` under
``manual_seed``, or a script ``Dataset``); a loss (MSE, CrossEntropy with class weights and label
smoothing, BCEWithLogits with ``pos_weight``, NLL, L1, Huber, SmoothL1); an optimizer (SGD with
momentum/nesterov/weight_decay, Adam/AdamW with amsgrad, RMSprop centered, Adagrad, Adamax, NAdam,
RAdam); an lr scheduler (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR stepped per
batch, ReduceLROnPlateau on the epoch's loss, LambdaLR with a script lambda or function, warm-up chains
through SequentialLR/ChainedScheduler); ``clip_grad_norm_``/``clip_grad_value_``; ``model.train()``/
``eval()``, ``torch.no_grad()`` evaluation, accuracy via argmax; ``state_dict`` save/load round trips in
memory (model and optimizer); prints of the loss with f-strings, of parameters, ``get_last_lr()``,
``optimizer.state_dict()['param_groups']``, per epoch. Sizes are small and the data float32: most
numbers print with ``:.4f`` (their last float32 digits depend on the CPU), some as full reprs.
"""
from __future__ import annotations

import random

ACTS = ["nn.ReLU()", "nn.Tanh()", "nn.GELU()", "nn.LeakyReLU(0.1)", "nn.SiLU()", "nn.Sigmoid()", "nn.ELU()"]
FACTS = ["F.relu", "torch.tanh", "F.gelu", "torch.sigmoid", "F.silu"]
OPTIMS = ["torch.optim.SGD({p}, lr=0.1)", "torch.optim.SGD({p}, lr=0.05, momentum=0.9)",
          "torch.optim.SGD({p}, lr=0.05, momentum=0.9, nesterov=True)",
          "torch.optim.SGD({p}, lr=0.1, momentum=0.5, weight_decay=1e-3, dampening=0.1)",
          "torch.optim.Adam({p}, lr=0.01)", "torch.optim.Adam({p}, lr=0.01, amsgrad=True)",
          "torch.optim.Adam({p}, lr=0.005, betas=(0.8, 0.99), weight_decay=1e-4)",
          "torch.optim.AdamW({p}, lr=0.01)", "torch.optim.AdamW({p}, lr=0.02, weight_decay=0.05, amsgrad=True)",
          "torch.optim.RMSprop({p}, lr=0.01)", "torch.optim.RMSprop({p}, lr=0.01, centered=True)",
          "torch.optim.RMSprop({p}, lr=0.005, momentum=0.9, centered=True, weight_decay=1e-3)",
          "torch.optim.Adagrad({p}, lr=0.1)", "torch.optim.Adagrad({p}, lr=0.05, lr_decay=0.01, weight_decay=1e-3)",
          "torch.optim.Adamax({p}, lr=0.02)", "torch.optim.NAdam({p}, lr=0.01)",
          "torch.optim.NAdam({p}, lr=0.01, momentum_decay=0.005, decoupled_weight_decay=True, weight_decay=0.01)",
          "torch.optim.RAdam({p}, lr=0.01)", "torch.optim.RAdam({p}, lr=0.01, decoupled_weight_decay=True, "
          "weight_decay=0.01)"]
SCHEDS = [None, None, "StepLR(opt, step_size=1, gamma=0.5)", "StepLR(opt, 2)",
          "MultiStepLR(opt, milestones=[1, 2], gamma=0.1)", "ExponentialLR(opt, gamma=0.9)",
          "CosineAnnealingLR(opt, T_max={e})", "CosineAnnealingLR(opt, T_max=2, eta_min=1e-4)",
          "OneCycleLR(opt, max_lr=0.1, total_steps={t})", "OneCycleLR(opt, max_lr=0.05, epochs={e}, "
          "steps_per_epoch={b}, anneal_strategy='linear')",
          "ReduceLROnPlateau(opt, mode='min', factor=0.5, patience=0)",
          "ReduceLROnPlateau(opt, factor=0.1, patience=1, threshold=0.1)",
          "LambdaLR(opt, lr_lambda=lambda epoch: 0.95 ** epoch)", "LambdaLR(opt, warmup)",
          "SequentialLR(opt, schedulers=[LinearLR(opt, start_factor=0.1, total_iters=1), "
          "CosineAnnealingLR(opt, T_max=2)], milestones=[1])",
          "ChainedScheduler([LinearLR(opt, start_factor=0.5, total_iters=2), ExponentialLR(opt, gamma=0.9)])",
          "LinearLR(opt, start_factor=0.25, total_iters={e})"]
# loss text, target kind
LOSSES = [("nn.MSELoss()", "reg"), ("nn.L1Loss()", "reg"), ("nn.HuberLoss(delta=0.5)", "reg"),
          ("nn.SmoothL1Loss(beta=0.5)", "reg"), ("nn.MSELoss(reduction='sum')", "reg"), ("nn.CrossEntropyLoss()", "cls"),
          ("nn.CrossEntropyLoss(weight={w})", "cls"), ("nn.CrossEntropyLoss(label_smoothing=0.1)", "cls"),
          ("nn.CrossEntropyLoss(weight={w}, label_smoothing=0.2)", "cls"), ("nn.NLLLoss()", "nll"),
          ("nn.NLLLoss(weight={w})", "nll"), ("nn.BCEWithLogitsLoss()", "bin"),
          ("nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))", "bin")]


class Train:
    def __init__(self, r: random.Random):
        self.r = r
        self.lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]

    def emit(self, *lines):
        self.lines.extend(lines)

    # ------------------------------------------------------------------ the model
    def model(self, data, n_out):
        """The script class: (__init__ lines, forward lines), for the input kind ``data``."""
        r = self.r
        h = r.choice([4, 5, 6, 8])
        act = r.choice(ACTS)
        if data == "tab":
            f = self.features
            norm = r.choice(["", "", f"nn.BatchNorm1d({h}), ", f"nn.LayerNorm({h}), "])
            # a bias just before BatchNorm gets only rounding noise as gradient, which Adam/RMSprop/Adagrad
            # scale up to whole steps: its sign is the summation order's, so it is left out, as tutorials do
            nobias = ", bias=False" if "Batch" in norm else ""
            drop = r.choice(["", f"nn.Dropout({r.choice(['0.1', '0.5'])}), "])
            style = r.choice(["seq", "list", "plain"])
            if style == "seq":
                init = [f"self.net = nn.Sequential(nn.Linear({f}, {h}{nobias}), {norm}{act}, {drop}nn.Linear({h}, {n_out}))"]
                fwd = ["return self.net(x)"]
            elif style == "list":
                k = r.randint(1, 3)
                init = [f"self.layers = nn.ModuleList([nn.Linear({f} if i == 0 else {h}, {h}) for i in range({k})])",
                        f"self.head = nn.Linear({h}, {n_out})", f"self.act = {act}"]
                fwd = ["for layer in self.layers:", "    x = self.act(layer(x))", "return self.head(x)"]
            else:
                init = [f"self.fc1 = nn.Linear({f}, {h})", f"self.fc2 = nn.Linear({h}, {n_out}, bias={r.choice(['True', 'False'])})",
                        f"self.drop = nn.Dropout({r.choice(['0.0', '0.2'])})"]
                fwd = [f"x = self.drop({r.choice(FACTS)}(self.fc1(x)))", "return self.fc2(x)"]
        elif data == "seq":
            cell = r.choice(["LSTM", "GRU"])
            layers, bi = r.choice([1, 1, 2]), r.random() < 0.3
            opts = f", num_layers={layers}" if layers > 1 else ""
            opts += ", bidirectional=True" if bi else ""
            opts += ", dropout=0.2" if layers > 1 and r.random() < 0.3 else ""
            width = 2 * h if bi else h
            init = [f"self.rnn = nn.{cell}({self.features}, {h}, batch_first=True{opts})",
                    f"self.head = nn.Linear({width}, {n_out})"]
            if r.random() < 0.5:
                fwd = ["out, _ = self.rnn(x)", "return self.head(out[:, -1])"]
            elif cell == "LSTM" and not bi:
                fwd = ["_, (h, c) = self.rnn(x)", "return self.head(h[-1])"]
            else:
                fwd = ["out, h = self.rnn(x)", "return self.head(out.mean(dim=1))"]
        elif data == "tok":
            d = r.choice([3, 4])
            pad = r.choice(["", ", padding_idx=0"])
            init = [f"self.emb = nn.Embedding({self.vocab}, {d}{pad})"]
            if r.random() < 0.5:
                init.append(f"self.head = nn.Linear({d}, {n_out})")
                fwd = ["e = self.emb(x)", "return self.head(e.mean(dim=1))"]
            else:
                init += [f"self.rnn = nn.GRU({d}, {h}, batch_first=True)", f"self.head = nn.Linear({h}, {n_out})"]
                fwd = ["out, _ = self.rnn(self.emb(x))", "return self.head(out[:, -1])"]
        elif data == "img":
            c = r.choice([2, 3])
            norm = r.choice(["", f"nn.BatchNorm2d({c}), "])
            pool = r.choice(["nn.MaxPool2d(2)", "nn.AvgPool2d(2)", "nn.AdaptiveAvgPool2d(2)"])
            nobias = ", bias=False" if norm else ""
            init = [f"self.features = nn.Sequential(nn.Conv2d(1, {c}, 3, padding=1{nobias}), {norm}nn.ReLU(), {pool})",
                    f"self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout({r.choice(['0.0', '0.25'])}), "
                    f"nn.Linear({c * 4}, {n_out}))"]
            fwd = ["x = self.features(x)", "return self.classifier(x)"]
        else:  # conv1d over (N, C, L)
            c = r.choice([2, 4])
            bn = r.random() < 0.5
            init = [f"self.conv = nn.Conv1d({self.features}, {c}, 3, padding={r.choice([0, 1])}, bias={not bn})",
                    f"self.bn = nn.BatchNorm1d({c})" if bn else "self.bn = nn.Identity()",
                    f"self.fc = nn.Linear({c}, {n_out})"]
            fwd = ["x = F.relu(self.bn(self.conv(x)))", "return self.fc(x.mean(dim=-1))"]
        return init, fwd

    def data(self, data, kind, n, n_out, xname="X"):
        """The inputs' and targets' expressions; ``n`` is their count (a number or a name)."""
        r = self.r
        shape = {"tab": f"{n}, {self.features}", "seq": f"{n}, {self.steps}, {self.features}",
                 "img": f"{n}, 1, 4, 4", "c1d": f"{n}, {self.features}, 5"}.get(data)
        x = f"torch.randint(0, {self.vocab}, ({n}, {self.steps}))" if data == "tok" else f"torch.randn({shape})"
        if kind == "reg":
            y = f"torch.randn({n}, {n_out})"
            if data == "tab" and r.random() < 0.5:
                y = f"{xname} @ torch.randn({self.features}, {n_out}) + 0.1 * torch.randn({n}, {n_out})"
        elif kind == "bin":
            y = f"torch.randint(0, 2, ({n}, 1)).float()"
        else:
            y = f"torch.randint(0, {n_out}, ({n},))"
        return x, y

    # ------------------------------------------------------------------ the program
    def build(self):
        r = self.r
        data = r.choice(["tab", "tab", "seq", "tok", "img", "c1d"])
        self.features, self.steps, self.vocab = r.randint(2, 4), r.randint(2, 4), r.randint(5, 9)
        loss, kind = r.choice(LOSSES)
        n_out = {"reg": r.choice([1, 2]), "bin": 1}.get(kind, r.choice([2, 3]))
        loss = loss.format(w="torch.tensor([" + ", ".join(r.choice(["1.0", "0.5", "2.0"]) for _ in range(n_out)) + "])")
        n = r.choice([6, 8, 10, 12])
        bs = r.choice([2, 3, 4, 5, n])
        drop_last = r.random() < 0.2
        batches = n // bs if drop_last else -(-n // bs)
        epochs = r.randint(1, 3)
        init, fwd = self.model(data, n_out)
        if kind == "nll":
            fwd[-1] = fwd[-1].replace("return ", "return F.log_softmax(") + ", dim=1)"
        self.emit("from torch.utils.data import TensorDataset, DataLoader, Dataset",
                  f"torch.manual_seed({r.randrange(1000)})")
        if r.random() < 0.3:
            x, y = self.data(data, kind, "n", n_out, "self.x")
            self.emit("class Toy(Dataset):", "    def __init__(self, n):", f"        self.x = {x}", f"        self.y = {y}",
                      "    def __len__(self):", "        return len(self.x)", "    def __getitem__(self, i):",
                      "        return self.x[i], self.y[i]", f"ds = Toy({n})", "X, Y = ds.x, ds.y")
        else:
            x, y = self.data(data, kind, n, n_out)
            self.emit(f"X = {x}", f"Y = {y}", "ds = TensorDataset(X, Y)")
        opts = f"batch_size={bs}" + (", shuffle=True" if r.random() < 0.6 else "") + (", drop_last=True" if drop_last else "")
        self.emit(f"loader = DataLoader(ds, {opts})")
        if r.random() < 0.2:
            self.emit("print(len(ds), len(loader))")
        self.emit("class Net(nn.Module):", "    def __init__(self):", "        super().__init__()",
                  *["        " + ln for ln in init], "    def forward(self, x):", *["        " + ln for ln in fwd])
        self.emit("model = Net()")
        k = r.random()
        if k < 0.2:
            self.emit("print(model)")
        elif k < 0.4:
            self.emit("print(sum(p.numel() for p in model.parameters() if p.requires_grad))")
        elif k < 0.5:
            self.emit("print([(name, tuple(p.shape)) for name, p in model.named_parameters()])")
        self.emit(f"loss_fn = {loss}")
        params = "model.parameters()"
        if r.random() < 0.15:
            params = "[{'params': [p for n, p in model.named_parameters() if 'bias' not in n]}, " \
                     "{'params': [p for n, p in model.named_parameters() if 'bias' in n], 'weight_decay': 0.0}]"
        self.emit(f"opt = {r.choice(OPTIMS).format(p=params)}")
        sched = r.choice(SCHEDS)
        if batches == 0:
            sched = None if sched and "OneCycle" in sched else sched
        if sched:
            sched = sched.format(e=epochs, b=batches, t=epochs * batches)
            if "warmup" in sched:
                self.emit("def warmup(epoch):", "    if epoch < 2:", "        return (epoch + 1) / 2", "    return 0.5 ** (epoch - 1)")
            for name in ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "OneCycleLR", "ReduceLROnPlateau",
                         "LambdaLR", "SequentialLR", "ChainedScheduler", "LinearLR"):
                sched = sched.replace(f"{name}(", f"torch.optim.lr_scheduler.{name}(")
            self.emit(f"sched = {sched}")
        per_batch = bool(sched) and "OneCycle" in sched
        plateau = bool(sched) and "Plateau" in sched
        clip = r.choice(["", "", "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)",
                         "torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)",
                         "norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)"])
        target = "yb"
        loop = [f"for epoch in range({epochs}):", "    model.train()", "    total = 0.0",
                "    for xb, yb in loader:", "        opt.zero_grad()", "        out = model(xb)",
                f"        loss = loss_fn(out, {target})", "        loss.backward()"]
        if clip:
            loop.append("        " + clip)
        loop += ["        opt.step()"]
        if per_batch:
            loop.append("        sched.step()")
        loop.append("        total += loss.item()")
        avg = "total / len(loader)" if batches else "total"
        if plateau:
            loop.append(f"    sched.step({avg})")
        elif sched:
            loop.append("    sched.step()")
        pr = r.choice([f"    print(f'epoch {{epoch}} loss {{{avg}:.4f}}')", "    print(f'epoch {epoch}: last {loss.item():.4f}')",
                       "    print(epoch, round(loss.item(), 4))", "    print(f'{epoch=} {loss:.4f}')"])
        loop.append(pr)
        if sched and not plateau and r.random() < 0.7:
            loop.append(r.choice(["    print(sched.get_last_lr())", "    print([f'{lr:.5f}' for lr in sched.get_last_lr()])"]))
        elif r.random() < 0.3:
            loop.append(r.choice(["    print(opt.param_groups[0]['lr'])", "    print(f\"lr {opt.param_groups[0]['lr']:.6f}\")"]))
        if clip.startswith("norm") and r.random() < 0.5:
            loop.append("    print(f'grad norm {norm:.4f}')")
        self.emit(*loop)
        self.evaluate(kind)
        self.extras(sched)

    def evaluate(self, kind):
        r = self.r
        self.emit("model.eval()")
        if kind in ("cls", "nll"):
            acc = r.choice(["(pred.argmax(dim=1) == Y).float().mean()", "(pred.argmax(1) == Y).sum().item() / len(Y)"])
        elif kind == "bin":
            acc = "((pred > 0).float() == Y).float().mean()"
        else:
            acc = "loss_fn(pred, Y)"
        self.emit("with torch.no_grad():", "    pred = model(X)", f"    acc = {acc}")
        self.emit(r.choice(["print(f'eval {acc:.4f}')", "print(f'eval {float(acc):.3f}')", "print('eval', round(float(acc), 4))"]))
        if r.random() < 0.3:
            self.emit("print(pred.requires_grad, pred.shape)")

    def extras(self, sched):
        r = self.r
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.2:
                self.emit("sd = {k: v.clone() for k, v in model.state_dict().items()}", "model2 = Net()",
                          "print(model2.load_state_dict(sd))", "model2.eval()",
                          "with torch.no_grad():", "    print(torch.equal(model2(X), model(X)))")
            elif k < 0.35:
                self.emit("print(list(model.state_dict().keys()))")
            elif k < 0.5:
                self.emit("print(opt.state_dict()['param_groups'])")
            elif k < 0.6:
                self.emit("osd = opt.state_dict()", "print(sorted(osd['state'].keys()), sorted(osd['state'][0].keys()))")
            elif k < 0.7:
                self.emit("name, p = next(iter(model.named_parameters()))", "print(name, p)")
            elif k < 0.78:
                self.emit("for name, p in model.named_parameters():",
                          "    print(name, tuple(p.shape), f'{p.detach().abs().mean():.4f}', p.grad is None)")
            elif k < 0.86 and sched:
                self.emit("print(sched.state_dict().get('last_epoch'), opt.param_groups[0]['lr'])")
            elif k < 0.93:
                self.emit("opt2 = type(opt)(model.parameters(), lr=1.0)", "opt2.load_state_dict(opt.state_dict())",
                          "print(opt2.param_groups[0]['lr'] == opt.param_groups[0]['lr'], len(opt2.state))")
            else:
                self.emit("opt.zero_grad(set_to_none=False)", "print([float(p.grad.abs().sum()) for p in model.parameters()][:2])")


def generate_train(seed: int, index: int) -> str:
    t = Train(random.Random(f"train:{seed}:{index}"))
    t.build()
    return "\n".join(t.lines) + "\n"
