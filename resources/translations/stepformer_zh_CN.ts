<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Appearance</name>
    <message>
        <source>&amp;Appearance</source>
        <translation>外观(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;System Theme</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>The colours of the desktop</source>
        <translation>使用桌面的配色</translation>
    </message>
    <message>
        <source>&amp;Light Theme</source>
        <translation>浅色主题(&amp;L)</translation>
    </message>
    <message>
        <source>Dark text on light backgrounds</source>
        <translation>浅色背景、深色文字</translation>
    </message>
    <message>
        <source>&amp;Dark Theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <source>Light text on dark backgrounds: easier on the eyes in a dim room</source>
        <translation>深色背景、浅色文字：在光线较暗的教室里更护眼</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Larger text, labels and cells, for presenting (Ctrl++)</source>
        <translation>放大文字、标签和单元格，便于演示（Ctrl++）</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Back towards the desktop&apos;s text size (Ctrl+-)</source>
        <translation>缩回桌面的文字大小（Ctrl+-）</translation>
    </message>
    <message>
        <source>&amp;Actual Size</source>
        <translation>实际大小(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Actual Size (now %1 %)</source>
        <translation>实际大小(&amp;A)（当前 %1 %）</translation>
    </message>
</context>
<context>
    <name>ArchitectureDiagram</name>
    <message>
        <source>layer %1/%2</source>
        <translation>第 %1/%2 层</translation>
    </message>
    <message>
        <source>Click: go to &lt;tt&gt;%1&lt;/tt&gt;</source>
        <translation>点击：跳转到 &lt;tt&gt;%1&lt;/tt&gt;</translation>
    </message>
    <message>
        <source> (not in this trace)</source>
        <translation>（不在此追踪中）</translation>
    </message>
    <message>
        <source>Output Probabilities</source>
        <translation>输出概率</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>Current step</source>
        <translation>当前步骤</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>shared</source>
        <translation>共享</translation>
    </message>
    <message>
        <source>trg_seq (shifted right)</source>
        <translation>trg_seq（右移一位）</translation>
    </message>
    <message>
        <source>+b: bias. dropout: before the add. Dashed: a shared weight.</source>
        <translation>+b：偏置。dropout：在相加之前。虚线：共享的权重。</translation>
    </message>
    <message>
        <source>Add &amp; Norm</source>
        <translation>Add &amp; Norm</translation>
    </message>
    <message>
        <source>masked slf_attn
(q/√d_k)·kᵀ</source>
        <translation>掩码 slf_attn
(q/√d_k)·kᵀ</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Outputs (shifted right)</source>
        <translation>输出（右移一位）</translation>
    </message>
    <message>
        <source>Positional Encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Click a block to go to its first step; hover for details.</source>
        <translation>点击模块跳到它的第一步；悬停查看详情。</translation>
    </message>
    <message>
        <source>Input Embedding</source>
        <translation>输入嵌入</translation>
    </message>
    <message>
        <source>Multi-Head Attention</source>
        <translation>多头注意力</translation>
    </message>
    <message>
        <source>Feed Forward</source>
        <translation>前馈网络</translation>
    </message>
    <message>
        <source>Output Embedding</source>
        <translation>输出嵌入</translation>
    </message>
    <message>
        <source>Masked Multi-Head Attention</source>
        <translation>掩码多头注意力</translation>
    </message>
    <message>
        <source>Linear</source>
        <translation>线性层</translation>
    </message>
    <message>
        <source>tgt (shifted right)</source>
        <translation>tgt（右移一位）</translation>
    </message>
    <message>
        <source>+b: with bias. Click a block to go to its first step; hover for details.</source>
        <translation>+b：带偏置。点击模块跳到它的第一步；悬停查看详情。</translation>
    </message>
    <message>
        <source>generator (Linear)</source>
        <translation>generator（Linear）</translation>
    </message>
    <message>
        <source>self_attn
attention</source>
        <translation>self_attn
注意力</translation>
    </message>
    <message>
        <source>self_attn
masked attention</source>
        <translation>self_attn
掩码注意力</translation>
    </message>
    <message>
        <source>multihead_attn
cross-attention</source>
        <translation>multihead_attn
交叉注意力</translation>
    </message>
    <message>
        <source>idx (token ids)</source>
        <translation>idx（词元 id）</translation>
    </message>
    <message>
        <source>Dashed: one weight, wte = lm_head. Click a block to go to its first step.</source>
        <translation>虚线：同一个权重，wte = lm_head。点击模块跳到它的第一步。</translation>
    </message>
    <message>
        <source>wte (token embedding)</source>
        <translation>wte（词元嵌入）</translation>
    </message>
    <message>
        <source>wpe (learned positions)</source>
        <translation>wpe（可学习的位置）</translation>
    </message>
    <message>
        <source>drop(tok_emb + pos_emb)</source>
        <translation>drop(tok_emb + pos_emb)</translation>
    </message>
    <message>
        <source>attn
causal self-attention</source>
        <translation>attn
因果自注意力</translation>
    </message>
    <message>
        <source>mlp
c_fc · GELU · c_proj</source>
        <translation>mlp
c_fc · GELU · c_proj</translation>
    </message>
    <message>
        <source>lm_head (= wte, tied)</source>
        <translation>lm_head（= wte，共享权重）</translation>
    </message>
    <message>
        <source>Architecture diagram</source>
        <translation>架构图</translation>
    </message>
    <message>
        <source>The model&apos;s blocks; a click on a block goes to its first step.</source>
        <translation>模型的各个模块；单击一个模块即跳到它的第一步。</translation>
    </message>
</context>
<context>
    <name>AttentionLinesWidget</name>
    <message>
        <source>Query &lt;b&gt;&apos;%1&apos;&lt;/b&gt; (position %2) attends to:</source>
        <translation>查询 &lt;b&gt;&apos;%1&apos;&lt;/b&gt;（位置 %2）关注：</translation>
    </message>
    <message>
        <source>Key &lt;b&gt;&apos;%1&apos;&lt;/b&gt; (position %2) is attended by:</source>
        <translation>键 &lt;b&gt;&apos;%1&apos;&lt;/b&gt;（位置 %2）被以下词元关注：</translation>
    </message>
    <message>
        <source> (masked)</source>
        <translation>（已掩码）</translation>
    </message>
    <message>
        <source>No attention weights to draw.</source>
        <translation>没有可绘制的注意力权重。</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>0 (masked)</source>
        <translation>0（已掩码）</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Each line joins a query (left) to a key (right); the more opaque, the larger the attention weight. Hover a token to see its lines.</source>
        <translation>每条线把一个查询（左）连到一个键（右）；线越不透明，注意力权重越大。将鼠标悬停在词元上可查看它的连线。</translation>
    </message>
    <message>
        <source>Attention lines</source>
        <translation>注意力连线</translation>
    </message>
    <message>
        <source>Each query token joined to the key tokens it attends to; a thicker line is a larger weight.</source>
        <translation>每个查询词元与它关注的键词元相连；线越粗，权重越大。</translation>
    </message>
</context>
<context>
    <name>AttentionOverview</name>
    <message>
        <source>Every cell&apos;s colour scale: the attention weight from 0 to 1; hatched = masked</source>
        <translation>每个单元格的色标：注意力权重从 0 到 1；斜线阴影 = 已掩码</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已掩码</translation>
    </message>
    <message>
        <source>Every layer (rows) and head (columns) of this attention block, and the mean of the heads: hover a cell for its weight, click one to enlarge it</source>
        <translation>此注意力块的每一层（行）和每个头（列），以及各头的平均值：悬停单元格查看其权重，点击可放大</translation>
    </message>
    <message>
        <source>Layer %1, the mean of the heads: click to enlarge the layer</source>
        <translation>第 %1 层，各头的平均值：点击放大该层</translation>
    </message>
    <message>
        <source>Layer %1, head %2: click to enlarge</source>
        <translation>第 %1 层，头 %2：点击放大</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Attention head %1 of every layer</source>
        <translation>每一层的注意力头 %1</translation>
    </message>
    <message>
        <source>The mean of the heads&apos; weights in every layer (rows still sum to 1)</source>
        <translation>每一层各头权重的平均值（每行之和仍为 1）</translation>
    </message>
    <message>
        <source>The key tokens: each column of the cells below is one of them</source>
        <translation>键词元：下方单元格的每一列对应其中一个</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Layer %1 (numbered from 0)</source>
        <translation>第 %1 层（从 0 开始编号）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Layer %1 · mean of the %2 heads&lt;/b&gt;&lt;br&gt;query &lt;b&gt;&apos;%3&apos;&lt;/b&gt; → key &lt;b&gt;&apos;%4&apos;&lt;/b&gt;: &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;per head: %6</source>
        <translation>&lt;b&gt;第 %1 层 · %2 个头的平均值&lt;/b&gt;&lt;br&gt;查询 &lt;b&gt;&apos;%3&apos;&lt;/b&gt; → 键 &lt;b&gt;&apos;%4&apos;&lt;/b&gt;：&lt;b&gt;%5&lt;/b&gt;&lt;br&gt;各头：%6</translation>
    </message>
    <message>
        <source>Colour scale of the attention weights</source>
        <translation>注意力权重的色标</translation>
    </message>
    <message>
        <source>Key tokens</source>
        <translation>键词元</translation>
    </message>
</context>
<context>
    <name>AttentionReplay</name>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Block</source>
        <translation>注意力块</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>attention weight</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>A masked position: the mask set its score to −1e9 before the softmax, so it gets no attention.</source>
        <translation>被掩码的位置：掩码在 softmax 之前把它的分数设为 −1e9，因此它得不到任何注意力。</translation>
    </message>
    <message>
        <source>Start training: after every epoch the attention of the replay sentence is kept here.</source>
        <translation>开始训练：每个轮次（epoch）结束后，回放句子的注意力都会保存在这里。</translation>
    </message>
    <message>
        <source>Play the epochs</source>
        <translation>播放各轮次</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Head %1: click to enlarge</source>
        <translation>头 %1：点击放大</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#777&apos;&gt;No attention kept yet.&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#777&apos;&gt;尚未保存任何注意力。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>no epochs yet</source>
        <translation>尚无轮次</translation>
    </message>
    <message>
        <source>Replay sentence: &lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>回放句子：&lt;b&gt;%1&lt;/b&gt; → &lt;b&gt;%2&lt;/b&gt;</translation>
    </message>
    <message>
        <source>epoch 0 / %1 · initial weights</source>
        <translation>轮次 0 / %1 · 初始权重</translation>
    </message>
    <message>
        <source>epoch %1 / %2</source>
        <translation>轮次 %1 / %2</translation>
    </message>
    <message>
        <source> · mean loss %1</source>
        <translation> · 平均损失 %1</translation>
    </message>
    <message>
        <source>This snapshot has no %1 in layer %2.</source>
        <translation>此快照的第 %2 层中没有 %1。</translation>
    </message>
    <message>
        <source>query (source token)</source>
        <translation>查询（源词元）</translation>
    </message>
    <message>
        <source>query (target token)</source>
        <translation>查询（目标词元）</translation>
    </message>
    <message>
        <source>key (target token)</source>
        <translation>键（目标词元）</translation>
    </message>
    <message>
        <source>key (source token)</source>
        <translation>键（源词元）</translation>
    </message>
    <message>
        <source>%1 · layer %2 · head %3 · %4</source>
        <translation>%1 · 第 %2 层 · 头 %3 · %4</translation>
    </message>
    <message>
        <source>before training</source>
        <translation>训练前</translation>
    </message>
    <message>
        <source>after epoch %1</source>
        <translation>第 %1 轮后</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
</context>
<context>
    <name>AttentionView</name>
    <message>
        <source>Which attention block: the encoder&apos;s self-attention, the decoder&apos;s masked self-attention, or the decoder–encoder attention</source>
        <translation>选择注意力块：编码器的自注意力、解码器的掩码自注意力，或编码器-解码器注意力</translation>
    </message>
    <message>
        <source>Which layer (n_layers) of the encoder or decoder</source>
        <translation>选择编码器或解码器的哪一层（n_layers）</translation>
    </message>
    <message>
        <source>One layer</source>
        <translation>单层</translation>
    </message>
    <message>
        <source>All layers</source>
        <translation>所有层</translation>
    </message>
    <message>
        <source>One layer: its heads, one enlarged, and the lines between the tokens.
All layers: every layer × every head of the block at once (click a cell to enlarge it).</source>
        <translation>单层：显示其各个头、一个放大的头，以及词元之间的连线。
所有层：同时显示该注意力块的每一层 × 每个头（点击单元格可放大）。</translation>
    </message>
    <message>
        <source>Which sentence of the batch to show</source>
        <translation>显示批中的哪个句子</translation>
    </message>
    <message>
        <source>The enlarged head (or click one of the small heatmaps)</source>
        <translation>放大显示的头（也可点击某个小热力图）</translation>
    </message>
    <message>
        <source>All heads</source>
        <translation>所有头</translation>
    </message>
    <message>
        <source>Line view: draw every head&apos;s lines at once, one colour per head</source>
        <translation>连线视图：同时绘制所有头的连线，每个头一种颜色</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Block:</source>
        <translation>注意力块：</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>No data yet — run the forward pass to see the attention weights.</source>
        <translation>暂无数据 — 运行前向传播以查看注意力权重。</translation>
    </message>
    <message>
        <source>No attention weights for the %1 of layer %2 in this trace.</source>
        <translation>此追踪中没有第 %2 层 %1 的注意力权重。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Layer %1 · %2&lt;/b&gt; — &lt;tt&gt;%3.attn&lt;/tt&gt;, sentence %4. Each row is a query, each column a key; every row sums to 1. Click a head to enlarge it; hover a token on the right to see its lines.</source>
        <translation>&lt;b&gt;第 %1 层 · %2&lt;/b&gt; — &lt;tt&gt;%3.attn&lt;/tt&gt;，句子 %4。每行是一个查询，每列是一个键；每行之和为 1。点击某个头可放大；悬停右侧的词元可查看其连线。</translation>
    </message>
    <message>
        <source>Head %1: click to enlarge</source>
        <translation>头 %1：点击放大</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;All layers · %1&lt;/b&gt; — &lt;tt&gt;%2&lt;/tt&gt;, sentence %3: a row per layer, a column per head and their mean (each cell: queries × keys). Click a cell to enlarge it.</source>
        <translation>&lt;b&gt;所有层 · %1&lt;/b&gt; — &lt;tt&gt;%2&lt;/tt&gt;，句子 %3：每层一行，每个头及其平均值各一列（每个单元格：查询 × 键）。点击单元格可放大。</translation>
    </message>
    <message>
        <source>Layer %1 · %2 · head %3</source>
        <translation>第 %1 层 · %2 · 头 %3</translation>
    </message>
    <message>
        <source>query: </source>
        <translation>查询：</translation>
    </message>
    <message>
        <source>key: </source>
        <translation>键：</translation>
    </message>
    <message>
        <source>All heads (opacity = weight)</source>
        <translation>所有头（不透明度 = 权重）</translation>
    </message>
    <message>
        <source>Head %1 (opacity = weight)</source>
        <translation>头 %1（不透明度 = 权重）</translation>
    </message>
</context>
<context>
    <name>BackwardStepList</name>
    <message>
        <source>loss  (= 1, where it starts)</source>
        <translation>损失  （= 1，反向传播的起点）</translation>
    </message>
    <message>
        <source>loss per token  (1/N each)</source>
        <translation>每个词元的损失  （各为 1/N）</translation>
    </message>
    <message>
        <source>Backward step %1 of %2: how much the loss changes when %3 changes.</source>
        <translation>反向步骤 %1 / %2：%3 变化时损失变化多少。</translation>
    </message>
</context>
<context>
    <name>CellTip</name>
    <message>
        <source>&lt;b&gt;0 = masked&lt;/b&gt; (this project&apos;s masks are 1 = keep): query %1 may not look at key %2 — %3.</source>
        <translation>&lt;b&gt;0 = 被掩码&lt;/b&gt;（该项目的掩码以 1 表示保留）：查询 %1 不能关注键 %2——%3。</translation>
    </message>
    <message>
        <source>&lt;b&gt;1 = keep&lt;/b&gt;: query %1 may look at key %2 (the tutorial would write 0 here).</source>
        <translation>&lt;b&gt;1 = 保留&lt;/b&gt;：查询 %1 可以关注键 %2（教程在此处会写 0）。</translation>
    </message>
    <message>
        <source>= input row %1 · %2.weight&lt;sup&gt;T&lt;/sup&gt;, column %3 (no bias); head %4 owns columns %5…%6.</source>
        <translation>= 输入第 %1 行 · %2.weight&lt;sup&gt;T&lt;/sup&gt;，第 %3 列（无偏置）；头 %4 占第 %5…%6 列。</translation>
    </message>
    <message>
        <source>= q[%1, %2] / temperature = %3 / %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;temperature = d_k ** 0.5 = √%6; the query is scaled &lt;i&gt;before&lt;/i&gt; q·kᵀ.</source>
        <translation>= q[%1, %2] / temperature = %3 / %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;temperature = d_k ** 0.5 = √%6；查询在 q·kᵀ &lt;i&gt;之前&lt;/i&gt;就已缩放。</translation>
    </message>
    <message>
        <source>(q%1 / temperature) · k%2 = &lt;b&gt;%3&lt;/b&gt;&lt;br&gt;query %4&apos;s already scaled row times key %5&apos;s row of k; no second scale (temperature = √d_k = %6)</source>
        <translation>(q%1 / temperature) · k%2 = &lt;b&gt;%3&lt;/b&gt;&lt;br&gt;查询 %4 已缩放的行乘以键 %5 在 k 中的行；不再做第二次缩放（temperature = √d_k = %6）</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;The mask is 0 here (%1): masked_fill puts −1e9 in this place next.&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;掩码在此处为 0（%1）：下一步 masked_fill 会在这里填入 −1e9。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>mask = 0 (%1) → masked_fill(mask == 0, −1e9) puts &lt;b&gt;−1e9&lt;/b&gt; here (the score was %2).</source>
        <translation>掩码 = 0（%1）→ masked_fill(mask == 0, −1e9) 在此处填入 &lt;b&gt;−1e9&lt;/b&gt;（原分数为 %2）。</translation>
    </message>
    <message>
        <source>mask = 1 (keep) → unchanged: the score %1.</source>
        <translation>掩码 = 1（保留）→ 保持不变：分数为 %1。</translation>
    </message>
    <message>
        <source>= row %1 of the concatenated heads · fc.weight&lt;sup&gt;T&lt;/sup&gt;, column %2 (no bias).</source>
        <translation>= 各头拼接后的第 %1 行 · fc.weight&lt;sup&gt;T&lt;/sup&gt;，第 %2 列（无偏置）。</translation>
    </message>
    <message>
        <source>= dropout(sub-layer) + residual = %1 + %2 = &lt;b&gt;%3&lt;/b&gt; (dropout is the identity outside training)&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;sub-layer: %4&lt;br&gt;residual: %5&lt;/span&gt;</source>
        <translation>= dropout(子层) + 残差 = %1 + %2 = &lt;b&gt;%3&lt;/b&gt;（非训练时 dropout 是恒等映射）&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;子层：%4&lt;br&gt;残差：%5&lt;/span&gt;</translation>
    </message>
    <message>
        <source>= row %1 of the input · w_1.weight&lt;sup&gt;T&lt;/sup&gt; + w_1.bias, unit %2 of d_inner.</source>
        <translation>= 输入的第 %1 行 · w_1.weight&lt;sup&gt;T&lt;/sup&gt; + w_1.bias，d_inner 中的单元 %2。</translation>
    </message>
    <message>
        <source>= row %1 of the ReLU · w_2.weight&lt;sup&gt;T&lt;/sup&gt; + w_2.bias, column %2.</source>
        <translation>= ReLU 输出的第 %1 行 · w_2.weight&lt;sup&gt;T&lt;/sup&gt; + w_2.bias，第 %2 列。</translation>
    </message>
    <message>
        <source>score of the word %1 at position %2 = row %2 of the decoder output · trg_word_prj.weight&lt;sup&gt;T&lt;/sup&gt; (no bias)%3.</source>
        <translation>词 %1 在位置 %2 的分数 = 解码器输出的第 %2 行 · trg_word_prj.weight&lt;sup&gt;T&lt;/sup&gt;（无偏置）%3。</translation>
    </message>
    <message>
        <source>, the weight shared with trg_word_emb</source>
        <translation>，该权重与 trg_word_emb 共享</translation>
    </message>
    <message>
        <source>cal_loss: the &lt;b&gt;sum&lt;/b&gt; of the label-smoothed per-token losses over the non-pad targets = &lt;b&gt;%1&lt;/b&gt;.</source>
        <translation>cal_loss：所有非填充目标上经标签平滑的逐词元损失之&lt;b&gt;和&lt;/b&gt; = &lt;b&gt;%1&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>−Σ smoothed target · log_softmax(logits) at this position (0.9 on the correct word, ε/(n_class − 1) on the others) = &lt;b&gt;%1&lt;/b&gt;.</source>
        <translation>此位置上的 −Σ 平滑后的目标 · log_softmax(logits)（正确的词为 0.9，其余各词为 ε/(n_class − 1)）= &lt;b&gt;%1&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>&lt;b&gt;−∞ = ignored&lt;/b&gt;: query %1 may not attend to key %2 — %3.</source>
        <translation>&lt;b&gt;−∞ = 被忽略&lt;/b&gt;：查询 %1 不能关注键 %2——%3。</translation>
    </message>
    <message>
        <source>&lt;b&gt;0 = may attend&lt;/b&gt;: query %1 may look at key %2 (adding 0 leaves the score as it is).</source>
        <translation>&lt;b&gt;0 = 可以关注&lt;/b&gt;：查询 %1 可以关注键 %2（加 0 不改变分数）。</translation>
    </message>
    <message>
        <source>= input row %1 · in_proj_weight[%2]ᵀ + in_proj_bias[%2]: row %2 of the packed weight (the %3 part is rows %4…%5); head %6 owns columns %7…%8 of the projection.</source>
        <translation>= 输入第 %1 行 · in_proj_weight[%2]ᵀ + in_proj_bias[%2]：打包权重的第 %2 行（%3 部分为第 %4…%5 行）；头 %6 占投影的第 %7…%8 列。</translation>
    </message>
    <message>
        <source>(q%1 / √head_dim) · k%2 = &lt;b&gt;%3&lt;/b&gt; (head_dim = %4, √head_dim = %5)&lt;br&gt;query %6&apos;s row of q, scaled first as PyTorch does, times key %7&apos;s row of k</source>
        <translation>(q%1 / √head_dim) · k%2 = &lt;b&gt;%3&lt;/b&gt;（head_dim = %4，√head_dim = %5）&lt;br&gt;查询 %6 在 q 中的行（按 PyTorch 的做法先缩放）乘以键 %7 在 k 中的行</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;This key is ignored (%1): the mask adds −∞ to this score next.&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;该键被忽略（%1）：下一步掩码会给这个分数加上 −∞。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>score + mask = %1 + (−∞) = &lt;b&gt;−∞&lt;/b&gt;: %2.</source>
        <translation>分数 + 掩码 = %1 + (−∞) = &lt;b&gt;−∞&lt;/b&gt;：%2。</translation>
    </message>
    <message>
        <source>score + mask = %1 + 0 = &lt;b&gt;%2&lt;/b&gt;: the key is visible, the score unchanged.</source>
        <translation>分数 + 掩码 = %1 + 0 = &lt;b&gt;%2&lt;/b&gt;：该键可见，分数不变。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Every key of this row is −∞&lt;/b&gt;: the softmax divides 0 by 0, and PyTorch 1.13 gives &lt;b&gt;NaN&lt;/b&gt; for the whole row (query %1 has nothing it may attend to).</source>
        <translation>&lt;b&gt;该行的所有键都是 −∞&lt;/b&gt;：softmax 要计算 0 除以 0，PyTorch 1.13 对整行给出 &lt;b&gt;NaN&lt;/b&gt;（查询 %1 没有任何可以关注的键）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Ignored&lt;/b&gt; (%1): its score is −∞ and exp(−∞) = &lt;b&gt;0&lt;/b&gt; — query %2 pays no attention to key %3.</source>
        <translation>&lt;b&gt;被忽略&lt;/b&gt;（%1）：它的分数为 −∞，而 exp(−∞) = &lt;b&gt;0&lt;/b&gt;——查询 %2 完全不关注键 %3。</translation>
    </message>
    <message>
        <source>softmax over row %1: exp(s − max) / Σ exp(s&lt;sub&gt;k&lt;/sub&gt; − max)&lt;br&gt;= exp(%2 − %3) / %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;How much query %6 attends to key %7 (each row sums to 1).</source>
        <translation>对第 %1 行做 softmax：exp(s − max) / Σ exp(s&lt;sub&gt;k&lt;/sub&gt; − max)&lt;br&gt;= exp(%2 − %3) / %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;查询 %6 对键 %7 的关注程度（每行之和为 1）。</translation>
    </message>
    <message>
        <source>= row %1 of the concatenated heads · out_proj.weight&lt;sup&gt;T&lt;/sup&gt; + out_proj.bias, column %2.</source>
        <translation>= 各头拼接后的第 %1 行 · out_proj.weight&lt;sup&gt;T&lt;/sup&gt; + out_proj.bias，第 %2 列。</translation>
    </message>
    <message>
        <source>= x + sub-layer output = %1 + %2 = &lt;b&gt;%3&lt;/b&gt;&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;x: %4&lt;br&gt;sub-layer: %5&lt;/span&gt;</source>
        <translation>= x + 子层输出 = %1 + %2 = &lt;b&gt;%3&lt;/b&gt;&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;x：%4&lt;br&gt;子层：%5&lt;/span&gt;</translation>
    </message>
    <message>
        <source>row %1 of %2: mean μ = %3, variance σ² = %4&lt;br&gt;(x − μ) / √(σ² + ε) = %5, then · weight[%6] + bias[%6] = &lt;b&gt;%7&lt;/b&gt;</source>
        <translation>%2 的第 %1 行：均值 μ = %3，方差 σ² = %4&lt;br&gt;(x − μ) / √(σ² + ε) = %5，再 · weight[%6] + bias[%6] = &lt;b&gt;%7&lt;/b&gt;</translation>
    </message>
    <message>
        <source>= row %1 of the input · linear1.weight&lt;sup&gt;T&lt;/sup&gt; + linear1.bias (d_model → dim_feedforward), unit %2.</source>
        <translation>= 输入的第 %1 行 · linear1.weight&lt;sup&gt;T&lt;/sup&gt; + linear1.bias（d_model → dim_feedforward），单元 %2。</translation>
    </message>
    <message>
        <source>= row %1 of the activation · linear2.weight&lt;sup&gt;T&lt;/sup&gt; + linear2.bias (dim_feedforward → d_model), column %2.</source>
        <translation>= 激活函数输出的第 %1 行 · linear2.weight&lt;sup&gt;T&lt;/sup&gt; + linear2.bias（dim_feedforward → d_model），第 %2 列。</translation>
    </message>
    <message>
        <source>token %1: its row of %2.embedding.weight, column %3, times √d_model = %4.</source>
        <translation>词元 %1：取它在 %2.embedding.weight 中的那一行的第 %3 列，再乘以 √d_model = %4。</translation>
    </message>
    <message>
        <source>a number given to the layer: position %1, feature %2.</source>
        <translation>输入该层的一个数：位置 %1，特征 %2。</translation>
    </message>
    <message>
        <source>score of the word %1 at position %2 = row %2 of the decoder output · generator.weight&lt;sup&gt;T&lt;/sup&gt; + generator.bias.</source>
        <translation>词 %1 在位置 %2 的分数 = 解码器输出的第 %2 行 · generator.weight&lt;sup&gt;T&lt;/sup&gt; + generator.bias。</translation>
    </message>
    <message numerus="yes">
        <source> + … (%n terms)</source>
        <translation>
            <numerusform> + …（共 %n 项）</numerusform>
        </translation>
    </message>
    <message>
        <source>∂loss/∂%1 at this index. Nudging this number by a small ε changes the loss by about %2·ε.</source>
        <translation>∂loss/∂%1 在此索引处的值。把这个数微调一个小量 ε，损失大约改变 %2·ε。</translation>
    </message>
    <message>
        <source>&lt;br&gt;The number itself: %1 = %2</source>
        <translation>&lt;br&gt;这个数本身：%1 = %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;1 = masked&lt;/b&gt;: query %1 may not look at key %2%3.</source>
        <translation>&lt;b&gt;1 = 被掩码&lt;/b&gt;：查询 %1 不能关注键 %2%3。</translation>
    </message>
    <message>
        <source>&lt;b&gt;0 = visible&lt;/b&gt;: query %1 may look at key %2.</source>
        <translation>&lt;b&gt;0 = 可见&lt;/b&gt;：查询 %1 可以关注键 %2。</translation>
    </message>
    <message>
        <source>= (input · %1&lt;sup&gt;T&lt;/sup&gt;)[%2, %3]: row %2 of the block input times column %3 of %1, i.e. column %4 of the projection — head %5 owns columns %6…%7.</source>
        <translation>= (输入 · %1&lt;sup&gt;T&lt;/sup&gt;)[%2, %3]：块输入的第 %2 行乘以 %1 的第 %3 列，即投影的第 %4 列——头 %5 占第 %6…%7 列。</translation>
    </message>
    <message>
        <source>q%1 · k%2 / √d_k = &lt;b&gt;%3 / %4 = %5&lt;/b&gt;&lt;br&gt;(the dot product of query %6&apos;s row of Q with key %7&apos;s row of K, d_k = %8)</source>
        <translation>q%1 · k%2 / √d_k = &lt;b&gt;%3 / %4 = %5&lt;/b&gt;&lt;br&gt;（查询 %6 在 Q 中的行与键 %7 在 K 中的行的点积，d_k = %8）</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;This key is masked (%1): the next step replaces this score by −1e9.&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;该键被掩码（%1）：下一步会把这个分数替换为 −1e9。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>mask[%1, %2] = 1 (%3) → masked_fill_ puts &lt;b&gt;−1e9&lt;/b&gt; here%4.</source>
        <translation>mask[%1, %2] = 1（%3）→ masked_fill_ 在此处填入 &lt;b&gt;−1e9&lt;/b&gt;%4。</translation>
    </message>
    <message>
        <source> (the score was %1)</source>
        <translation>（原分数为 %1）</translation>
    </message>
    <message>
        <source>mask[%1, %2] = 0 → unchanged: the score %3.</source>
        <translation>mask[%1, %2] = 0 → 保持不变：分数为 %3。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Masked&lt;/b&gt; (%1): its score is −1e9, and exp(−1e9 − %2) is exactly &lt;b&gt;0&lt;/b&gt; in floating point — query %3 pays no attention to key %4.</source>
        <translation>&lt;b&gt;被掩码&lt;/b&gt;（%1）：它的分数为 −1e9，而 exp(−1e9 − %2) 在浮点运算中恰好为 &lt;b&gt;0&lt;/b&gt;——查询 %3 完全不关注键 %4。</translation>
    </message>
    <message>
        <source>softmax over row %1: exp(s − max) / Σ exp(s&lt;sub&gt;k&lt;/sub&gt; − max)&lt;br&gt;= exp(%2 − %3) / %4 = %5 / %4 = &lt;b&gt;%6&lt;/b&gt;&lt;br&gt;How much query %7 attends to key %8 (each row sums to 1).</source>
        <translation>对第 %1 行做 softmax：exp(s − max) / Σ exp(s&lt;sub&gt;k&lt;/sub&gt; − max)&lt;br&gt;= exp(%2 − %3) / %4 = %5 / %4 = &lt;b&gt;%6&lt;/b&gt;&lt;br&gt;查询 %7 对键 %8 的关注程度（每行之和为 1）。</translation>
    </message>
    <message>
        <source>= row %1 of the concatenated heads&apos; context · fc.weight&lt;sup&gt;T&lt;/sup&gt; (n_heads·d_v → d_model), column %2.</source>
        <translation>= 各头拼接后的上下文向量的第 %1 行 · fc.weight&lt;sup&gt;T&lt;/sup&gt;（n_heads·d_v → d_model），第 %2 列。</translation>
    </message>
    <message>
        <source>= fc_out + input = %1 + %2 = &lt;b&gt;%3&lt;/b&gt;&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;input: %4&lt;/span&gt;</source>
        <translation>= fc_out + 输入 = %1 + %2 = &lt;b&gt;%3&lt;/b&gt;&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;输入：%4&lt;/span&gt;</translation>
    </message>
    <message>
        <source>row %1 of the residual: mean μ = %2, variance σ² = %3&lt;br&gt;(x − μ) / √(σ² + ε) = (%4 − %5) / %6 = %7&lt;br&gt;%8 = &lt;b&gt;%9&lt;/b&gt;</source>
        <translation>残差的第 %1 行：均值 μ = %2，方差 σ² = %3&lt;br&gt;(x − μ) / √(σ² + ε) = (%4 − %5) / %6 = %7&lt;br&gt;%8 = &lt;b&gt;%9&lt;/b&gt;</translation>
    </message>
    <message>
        <source>then · γ + β</source>
        <translation>再 · γ + β</translation>
    </message>
    <message>
        <source>no learned γ, β (fixed 1, 0)</source>
        <translation>没有可学习的 γ、β（固定为 1、0）</translation>
    </message>
    <message>
        <source>= row %1 of the input · fc[0].weight&lt;sup&gt;T&lt;/sup&gt; (d_model → d_ff), hidden unit %2.</source>
        <translation>= 输入的第 %1 行 · fc[0].weight&lt;sup&gt;T&lt;/sup&gt;（d_model → d_ff），隐藏单元 %2。</translation>
    </message>
    <message>
        <source>= max(0, hidden) = max(0, %1) = &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>= max(0, 隐藏值) = max(0, %1) = &lt;b&gt;%2&lt;/b&gt;</translation>
    </message>
    <message>
        <source>= row %1 of relu · fc[2].weight&lt;sup&gt;T&lt;/sup&gt; (d_ff → d_model), column %2.</source>
        <translation>= relu 的第 %1 行 · fc[2].weight&lt;sup&gt;T&lt;/sup&gt;（d_ff → d_model），第 %2 列。</translation>
    </message>
    <message>
        <source>token %1 has id %2: this is row %2, column %3 of the embedding table (%4).</source>
        <translation>词元 %1 的 id 为 %2：这是嵌入表（%4）第 %2 行、第 %3 列的值。</translation>
    </message>
    <message>
        <source>= embedding + PE[position %1] = %2 + %3 = &lt;b&gt;%4&lt;/b&gt;</source>
        <translation>= 嵌入 + PE[位置 %1] = %2 + %3 = &lt;b&gt;%4&lt;/b&gt;</translation>
    </message>
    <message>
        <source>score of the word %1 as the output at position %2 = row %2 of the decoder output · projection.weight&lt;sup&gt;T&lt;/sup&gt;.</source>
        <translation>词 %1 作为位置 %2 的输出的分数 = 解码器输出的第 %2 行 · projection.weight&lt;sup&gt;T&lt;/sup&gt;。</translation>
    </message>
    <message>
        <source>P(output at position %1 = %2) = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>P(位置 %1 的输出 = %2) = &lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>The target here is padding: CrossEntropyLoss(ignore_index=0) skips it.</source>
        <translation>此处的目标是填充词元：CrossEntropyLoss(ignore_index=0) 会跳过它。</translation>
    </message>
    <message>
        <source>= −log P(correct word)</source>
        <translation>= −log P(正确的词)</translation>
    </message>
    <message>
        <source>= −log P(correct word %1) = −log %2 = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>= −log P(正确的词 %1) = −log %2 = &lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>the mean of loss.per_token over the positions whose target is not padding.</source>
        <translation>目标不是填充词元的所有位置上 loss.per_token 的平均值。</translation>
    </message>
    <message>
        <source>value = &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>值 = &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>sentence %1, head %2</source>
        <translation>句子 %1，头 %2</translation>
    </message>
    <message>
        <source>sentence %1</source>
        <translation>句子 %1</translation>
    </message>
    <message>
        <source>row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>&lt;i&gt;Ignored: the additive mask is &lt;b&gt;−∞&lt;/b&gt; here, so the score became −∞.&lt;/i&gt;</source>
        <translation>&lt;i&gt;被忽略：加性掩码在此处为 &lt;b&gt;−∞&lt;/b&gt;，因此分数变为 −∞。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;Ignored: the score was −∞, so after the softmax this weight is exactly &lt;b&gt;0&lt;/b&gt; (NaN when every key of the row is −∞).&lt;/i&gt;</source>
        <translation>&lt;i&gt;被忽略：分数为 −∞，因此经过 softmax 后该权重恰好为 &lt;b&gt;0&lt;/b&gt;（若该行所有键都为 −∞，则为 NaN）。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;Masked: the mask is 0 here (1 = keep), so &lt;b&gt;masked_fill(mask == 0, −1e9)&lt;/b&gt; replaced the score by &lt;b&gt;−1e9&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;被掩码：掩码在此处为 0（1 = 保留），因此 &lt;b&gt;masked_fill(mask == 0, −1e9)&lt;/b&gt; 把分数替换为 &lt;b&gt;−1e9&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;Masked: the mask is 1 here, so &lt;b&gt;masked_fill_&lt;/b&gt; replaced the score by &lt;b&gt;−1e9&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;被掩码：掩码在此处为 1，因此 &lt;b&gt;masked_fill_&lt;/b&gt; 把分数替换为 &lt;b&gt;−1e9&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;Masked: the score was −1e9, so after the softmax this weight is exactly &lt;b&gt;0&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;被掩码：分数为 −1e9，因此经过 softmax 后该权重恰好为 &lt;b&gt;0&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;0 = masked&lt;/b&gt;: key %1 (position %2) comes after query %3 (position %4); the buffer tril(ones) is 0 above the diagonal, so masked_fill puts −∞ here.</source>
        <translation>&lt;b&gt;0 = 被掩码&lt;/b&gt;：键 %1（位置 %2）在查询 %3（位置 %4）之后；缓冲区 tril(ones) 在对角线以上为 0，因此 masked_fill 在此处填入 −∞。</translation>
    </message>
    <message>
        <source>&lt;b&gt;1 = may attend&lt;/b&gt;: key %1 is at or before query %2 (the buffer&apos;s lower triangle).</source>
        <translation>&lt;b&gt;1 = 可以关注&lt;/b&gt;：键 %1 位于查询 %2 处或其之前（缓冲区的下三角）。</translation>
    </message>
    <message>
        <source>= ln_1 row %1 · c_attn.weight[%2]ᵀ + c_attn.bias[%2]: row %2 of the packed weight (the %3 part is rows %4…%5); head %6 owns columns %7…%8 of %3.</source>
        <translation>= ln_1 第 %1 行 · c_attn.weight[%2]ᵀ + c_attn.bias[%2]：打包权重的第 %2 行（%3 部分为第 %4…%5 行）；头 %6 占 %3 的第 %7…%8 列。</translation>
    </message>
    <message>
        <source>= ln_1 row %1 · c_attn.weight[%2]ᵀ (no bias): row %2 of the packed weight (the %3 part is rows %4…%5); head %6 owns columns %7…%8 of %3.</source>
        <translation>= ln_1 第 %1 行 · c_attn.weight[%2]ᵀ（无偏置）：打包权重的第 %2 行（%3 部分为第 %4…%5 行）；头 %6 占 %3 的第 %7…%8 列。</translation>
    </message>
    <message>
        <source>(q%1 · k%2) × 1/√hs = %3 × %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;the row of query %6 in q times the row of key %7 in k, then multiplied by 1/√%8 (the product first, as nanoGPT does)</source>
        <translation>(q%1 · k%2) × 1/√hs = %3 × %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;查询 %6 在 q 中的行乘以键 %7 在 k 中的行，再乘以 1/√%8（按 nanoGPT 的做法，先相乘）</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;Key %1 comes after query %2: masked_fill puts −∞ here next.&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;键 %1 在查询 %2 之后：下一步 masked_fill 会在这里填入 −∞。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>bias = 0 (key %1 comes after query %2) → masked_fill(bias == 0, −inf) puts &lt;b&gt;−∞&lt;/b&gt; here (the score was %3).</source>
        <translation>bias = 0（键 %1 在查询 %2 之后）→ masked_fill(bias == 0, −inf) 在此处填入 &lt;b&gt;−∞&lt;/b&gt;（原分数为 %3）。</translation>
    </message>
    <message>
        <source>bias = 1 (may attend) → unchanged: the score %1.</source>
        <translation>bias = 1（可以关注）→ 保持不变：分数为 %1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Masked&lt;/b&gt;: key %1 comes after query %2, its score is −∞ and exp(−∞) = &lt;b&gt;0&lt;/b&gt; — the query pays it no attention.</source>
        <translation>&lt;b&gt;被掩码&lt;/b&gt;：键 %1 在查询 %2 之后，它的分数为 −∞，而 exp(−∞) = &lt;b&gt;0&lt;/b&gt;——该查询完全不关注它。</translation>
    </message>
    <message>
        <source>softmax over row %1: exp(s − max) / Σ exp(s&lt;sub&gt;k&lt;/sub&gt; − max)&lt;br&gt;= exp(%2 − %3) / %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;How much query %6 attends to key %7 (each row sums to 1; the later keys get 0).</source>
        <translation>对第 %1 行做 softmax：exp(s − max) / Σ exp(s&lt;sub&gt;k&lt;/sub&gt; − max)&lt;br&gt;= exp(%2 − %3) / %4 = &lt;b&gt;%5&lt;/b&gt;&lt;br&gt;查询 %6 对键 %7 的关注程度（每行之和为 1；更靠后的键为 0）。</translation>
    </message>
    <message>
        <source>= row %1 of y (the heads side by side) · c_proj.weight&lt;sup&gt;T&lt;/sup&gt; + c_proj.bias, column %2.</source>
        <translation>= y（各头并排拼接）的第 %1 行 · c_proj.weight&lt;sup&gt;T&lt;/sup&gt; + c_proj.bias，第 %2 列。</translation>
    </message>
    <message>
        <source>= row %1 of y (the heads side by side) · c_proj.weight&lt;sup&gt;T&lt;/sup&gt; (no bias), column %2.</source>
        <translation>= y（各头并排拼接）的第 %1 行 · c_proj.weight&lt;sup&gt;T&lt;/sup&gt;（无偏置），第 %2 列。</translation>
    </message>
    <message>
        <source>= x + sub-layer output = %1 + %2 = &lt;b&gt;%3&lt;/b&gt; (resid_dropout / dropout: the identity outside training)&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;x: %4&lt;br&gt;sub-layer: %5&lt;/span&gt;</source>
        <translation>= x + 子层输出 = %1 + %2 = &lt;b&gt;%3&lt;/b&gt;（resid_dropout / dropout：非训练时是恒等映射）&lt;br&gt;&lt;span style=&apos;color:#666&apos;&gt;x：%4&lt;br&gt;子层：%5&lt;/span&gt;</translation>
    </message>
    <message>
        <source>row %1 of %2: mean μ = %3, variance σ² = %4&lt;br&gt;(x − μ) / √(σ² + 1e-5) = %5, then · weight[%6] + bias[%6] = &lt;b&gt;%7&lt;/b&gt;</source>
        <translation>%2 的第 %1 行：均值 μ = %3，方差 σ² = %4&lt;br&gt;(x − μ) / √(σ² + 1e-5) = %5，再 · weight[%6] + bias[%6] = &lt;b&gt;%7&lt;/b&gt;</translation>
    </message>
    <message>
        <source>row %1 of %2: mean μ = %3, variance σ² = %4&lt;br&gt;(x − μ) / √(σ² + 1e-5) = %5, then · weight[%6] (bias=False) = &lt;b&gt;%7&lt;/b&gt;</source>
        <translation>%2 的第 %1 行：均值 μ = %3，方差 σ² = %4&lt;br&gt;(x − μ) / √(σ² + 1e-5) = %5，再 · weight[%6]（bias=False）= &lt;b&gt;%7&lt;/b&gt;</translation>
    </message>
    <message>
        <source>= row %1 of ln_2&apos;s output · c_fc.weight&lt;sup&gt;T&lt;/sup&gt; + c_fc.bias (n_embd → 4·n_embd), unit %2.</source>
        <translation>= ln_2 输出的第 %1 行 · c_fc.weight&lt;sup&gt;T&lt;/sup&gt; + c_fc.bias（n_embd → 4·n_embd），单元 %2。</translation>
    </message>
    <message>
        <source>= row %1 of ln_2&apos;s output · c_fc.weight&lt;sup&gt;T&lt;/sup&gt; (n_embd → 4·n_embd, no bias), unit %2.</source>
        <translation>= ln_2 输出的第 %1 行 · c_fc.weight&lt;sup&gt;T&lt;/sup&gt;（n_embd → 4·n_embd，无偏置），单元 %2。</translation>
    </message>
    <message>
        <source>= row %1 of the GELU · mlp.c_proj.weight&lt;sup&gt;T&lt;/sup&gt; + mlp.c_proj.bias (4·n_embd → n_embd), column %2.</source>
        <translation>= GELU 输出的第 %1 行 · mlp.c_proj.weight&lt;sup&gt;T&lt;/sup&gt; + mlp.c_proj.bias（4·n_embd → n_embd），第 %2 列。</translation>
    </message>
    <message>
        <source>= row %1 of the GELU · mlp.c_proj.weight&lt;sup&gt;T&lt;/sup&gt; (4·n_embd → n_embd, no bias), column %2.</source>
        <translation>= GELU 输出的第 %1 行 · mlp.c_proj.weight&lt;sup&gt;T&lt;/sup&gt;（4·n_embd → n_embd，无偏置），第 %2 列。</translation>
    </message>
    <message>
        <source>token %1 has id %2: row %2, column %3 of transformer.wte.weight — the same row lm_head scores the word %1 with (tied weights).</source>
        <translation>词元 %1 的 id 为 %2：transformer.wte.weight 的第 %2 行、第 %3 列——lm_head 给词 %1 打分时用的也是这同一行（共享权重）。</translation>
    </message>
    <message>
        <source>position %1: row %1, column %2 of transformer.wpe.weight — a learned number (a parameter), not a sine or cosine.</source>
        <translation>位置 %1：transformer.wpe.weight 的第 %1 行、第 %2 列——一个可学习的数（参数），而不是正弦或余弦值。</translation>
    </message>
    <message>
        <source>= tok_emb + pos_emb[position %1] = %2 + %3 = &lt;b&gt;%4&lt;/b&gt; (drop: the identity outside training)</source>
        <translation>= tok_emb + pos_emb[位置 %1] = %2 + %3 = &lt;b&gt;%4&lt;/b&gt;（drop：非训练时是恒等映射）</translation>
    </message>
    <message>
        <source>score of the word %1 as the next word at position %2 = row %2 of ln_f&apos;s output · row %3 of wte.weight (lm_head.weight is wte.weight; no bias).</source>
        <translation>词 %1 作为位置 %2 的下一个词的分数 = ln_f 输出的第 %2 行 · wte.weight 的第 %3 行（lm_head.weight 就是 wte.weight；无偏置）。</translation>
    </message>
    <message>
        <source>The target here is the pad word: F.cross_entropy(ignore_index=%1) skips it.</source>
        <translation>此处的目标是填充词：F.cross_entropy(ignore_index=%1) 会跳过它。</translation>
    </message>
    <message>
        <source>= −log P(next word)</source>
        <translation>= −log P(下一个词)</translation>
    </message>
    <message>
        <source>= −log P(next word %1) = −log %2 = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>= −log P(下一个词 %1) = −log %2 = &lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>F.cross_entropy&apos;s mean of loss.per_token over the targets that are not the pad word (ignore_index=%1).</source>
        <translation>F.cross_entropy 在所有非填充词目标上对 loss.per_token 取的平均值（ignore_index=%1）。</translation>
    </message>
    <message>
        <source>&lt;i&gt;Masked: the mask is 0 here (1 = keep), so &lt;b&gt;masked_fill(mask == 0, −inf)&lt;/b&gt; replaced the score by &lt;b&gt;−∞&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;被掩码：此处掩码为 0（1 = 保留），因此 &lt;b&gt;masked_fill(mask == 0, −inf)&lt;/b&gt; 已把分数替换为 &lt;b&gt;−∞&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;Masked: the score was −∞, so after the softmax this weight is exactly &lt;b&gt;0&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;被掩码：分数为 −∞，因此经过 softmax 后这个权重恰好为 &lt;b&gt;0&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
</context>
<context>
    <name>ComputeDevices</name>
    <message>
        <source>test device</source>
        <translation>测试设备</translation>
    </message>
    <message>
        <source>this build has no GPU backend (it needs libvulkan-dev and glslc when built)</source>
        <translation>此版本没有 GPU 后端（构建时需要 libvulkan-dev 和 glslc）</translation>
    </message>
    <message>
        <source>the Vulkan driver failed: %1</source>
        <translation>Vulkan 驱动出错：%1</translation>
    </message>
    <message>
        <source>no Vulkan device or driver on this machine</source>
        <translation>本机没有 Vulkan 设备或驱动</translation>
    </message>
    <message>
        <source>no usable Vulkan device</source>
        <translation>没有可用的 Vulkan 设备</translation>
    </message>
    <message>
        <source>CPU — %1</source>
        <translation>CPU — %1</translation>
    </message>
    <message>
        <source>GPU — %1</source>
        <translation>GPU — %1</translation>
    </message>
    <message numerus="yes">
        <source>%n threads</source>
        <translation>
            <numerusform>%n 个线程</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CoreMessage</name>
    <message>
        <source>%1: %2</source>
        <extracomment>context</extracomment>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>config: %1</source>
        <extracomment>config.problem</extracomment>
        <translation>配置：%1</translation>
    </message>
    <message>
        <source>config</source>
        <extracomment>config.word</extracomment>
        <translation>配置</translation>
    </message>
    <message>
        <source>config file &apos;%1&apos;</source>
        <extracomment>config.file_named</extracomment>
        <translation>配置文件 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>config in the metadata of &apos;%1&apos;</source>
        <extracomment>config.in_weights_metadata</extracomment>
        <translation>&apos;%1&apos; 元数据中的配置</translation>
    </message>
    <message>
        <source>cannot open config file &apos;%1&apos;</source>
        <extracomment>config.cannot_open</extracomment>
        <translation>无法打开配置文件 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>%1: not valid JSON (%2)</source>
        <extracomment>config.not_json</extracomment>
        <translation>%1：不是有效的 JSON（%2）</translation>
    </message>
    <message>
        <source>expected a JSON object</source>
        <extracomment>config.not_object</extracomment>
        <translation>应为 JSON 对象</translation>
    </message>
    <message>
        <source>missing key &apos;%1&apos;</source>
        <extracomment>config.missing_key</extracomment>
        <translation>缺少键 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>key &apos;%1&apos; has the wrong type (%2)</source>
        <extracomment>config.wrong_type</extracomment>
        <translation>键 &apos;%1&apos; 的类型错误（%2）</translation>
    </message>
    <message>
        <source>key &apos;%1&apos; must be an integer, got %2</source>
        <extracomment>config.not_integer</extracomment>
        <translation>键 &apos;%1&apos; 必须是整数，实际为 %2</translation>
    </message>
    <message>
        <source>key &apos;%1&apos; is out of range: %2</source>
        <extracomment>config.out_of_range</extracomment>
        <translation>键 &apos;%1&apos; 超出范围：%2</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is empty</source>
        <extracomment>config.key_empty</extracomment>
        <translation>&apos;%1&apos; 为空</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has an empty token or one with whitespace: &apos;%2&apos;</source>
        <extracomment>config.vocab_bad_token</extracomment>
        <translation>&apos;%1&apos; 中有空词元或含空白字符的词元：&apos;%2&apos;</translation>
    </message>
    <message>
        <source>&apos;%1&apos; lists &apos;%2&apos; twice</source>
        <extracomment>config.vocab_duplicate</extracomment>
        <translation>&apos;%1&apos; 中 &apos;%2&apos; 出现了两次</translation>
    </message>
    <message>
        <source>the pad token &apos;%1&apos; must have id 0 in &apos;%2&apos;, but id 0 is &apos;%3&apos;</source>
        <extracomment>config.pad_not_first</extracomment>
        <translation>填充词元 &apos;%1&apos; 在 &apos;%2&apos; 中的 id 必须为 0，但 id 0 是 &apos;%3&apos;</translation>
    </message>
    <message>
        <source>&apos;%1&apos; must be positive, got %2</source>
        <extracomment>config.not_positive</extracomment>
        <translation>&apos;%1&apos; 必须为正数，实际为 %2</translation>
    </message>
    <message>
        <source>&apos;%1&apos; = %2 is larger than the limit %3</source>
        <extracomment>config.over_limit</extracomment>
        <translation>&apos;%1&apos; = %2 超过上限 %3</translation>
    </message>
    <message>
        <source>&apos;d_model&apos; = %1 is not divisible by &apos;nhead&apos; = %2 (nn.MultiheadAttention splits d_model into nhead heads)</source>
        <extracomment>config.nhead_divides</extracomment>
        <translation>&apos;d_model&apos; = %1 不能被 &apos;nhead&apos; = %2 整除（nn.MultiheadAttention 把 d_model 分成 nhead 个头）</translation>
    </message>
    <message>
        <source>the head size of nn.MultiheadAttention is d_model / nhead</source>
        <extracomment>config.head_size</extracomment>
        <translation>nn.MultiheadAttention 的头大小为 d_model / nhead</translation>
    </message>
    <message>
        <source>&apos;activation&apos; must be &quot;relu&quot; or &quot;gelu&quot;, got &quot;%1&quot;</source>
        <extracomment>config.activation</extracomment>
        <translation>&apos;activation&apos; 必须是 &quot;relu&quot; 或 &quot;gelu&quot;，实际为 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>the layer lab has one encoder layer and at most one decoder layer</source>
        <extracomment>config.layer_lab_layers</extracomment>
        <translation>层实验室只有一个编码器层，最多一个解码器层</translation>
    </message>
    <message>
        <source>&apos;layer_norm_eps&apos; must be in (0, 1], got %1</source>
        <extracomment>config.layer_norm_eps</extracomment>
        <translation>&apos;layer_norm_eps&apos; 必须在 (0, 1] 内，实际为 %1</translation>
    </message>
    <message>
        <source>&apos;dropout&apos; must be in [0, 1), got %1</source>
        <extracomment>config.dropout</extracomment>
        <translation>&apos;dropout&apos; 必须在 [0, 1) 内，实际为 %1</translation>
    </message>
    <message>
        <source>&apos;scale_emb_or_prj&apos; must be &quot;emb&quot;, &quot;prj&quot; or &quot;none&quot;, got &quot;%1&quot;</source>
        <extracomment>config.scale_emb_or_prj</extracomment>
        <translation>&apos;scale_emb_or_prj&apos; 必须是 &quot;emb&quot;、&quot;prj&quot; 或 &quot;none&quot;，实际为 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>&apos;emb_src_trg_weight_sharing&apos; shares one embedding between source and target: it needs one vocabulary for both (src_vocab and tgt_vocab the same list); set it to false for separate vocabularies</source>
        <extracomment>config.shared_vocab</extracomment>
        <translation>&apos;emb_src_trg_weight_sharing&apos; 让源和目标共用一个嵌入：两边需要同一个词表（src_vocab 与 tgt_vocab 为同一列表）；若要使用不同的词表，请将其设为 false</translation>
    </message>
    <message>
        <source>sentences of up to %1 tokens need &apos;n_position&apos; &gt;= that, got %2</source>
        <extracomment>config.n_position</extracomment>
        <translation>句子最长 %1 个词元，需要 &apos;n_position&apos; 不小于该值，实际为 %2</translation>
    </message>
    <message>
        <source>the start token &apos;bos&apos; = &apos;%1&apos; is not in tgt_vocab</source>
        <extracomment>config.bos_missing</extracomment>
        <translation>起始词元 &apos;bos&apos; = &apos;%1&apos; 不在 tgt_vocab 中</translation>
    </message>
    <message>
        <source>the end token &apos;eos&apos; = &apos;%1&apos; is not in tgt_vocab</source>
        <extracomment>config.eos_missing</extracomment>
        <translation>结束词元 &apos;eos&apos; = &apos;%1&apos; 不在 tgt_vocab 中</translation>
    </message>
    <message>
        <source>pad, bos and eos must be three different tokens</source>
        <extracomment>config.special_tokens</extracomment>
        <translation>pad、bos 和 eos 必须是三个不同的词元</translation>
    </message>
    <message>
        <source>&apos;structure&apos; must be &quot;seq2seq&quot; or &quot;layers&quot;, got &quot;%1&quot;</source>
        <extracomment>config.structure</extracomment>
        <translation>&apos;structure&apos; 必须是 &quot;seq2seq&quot; 或 &quot;layers&quot;，实际为 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a key of the tutorial&apos;s model; &quot;architecture&quot;: &quot;torch&quot; takes nn.Transformer&apos;s arguments (d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first)</source>
        <extracomment>config.tutorial_key</extracomment>
        <translation>&apos;%1&apos; 是教程模型的键；&quot;architecture&quot;: &quot;torch&quot; 使用 nn.Transformer 的参数（d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; does not apply to the layer lab (&quot;structure&quot;: &quot;layers&quot;: one encoder layer, and a decoder layer when &quot;decoder_layer&quot; is true)</source>
        <extracomment>config.layer_lab_key</extracomment>
        <translation>&apos;%1&apos; 不适用于层实验室（&quot;structure&quot;: &quot;layers&quot;：一个编码器层，&quot;decoder_layer&quot; 为 true 时再加一个解码器层）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a key of &quot;architecture&quot;: &quot;aiayn&quot;, which takes its Transformer&apos;s arguments (d_model, d_inner, n_layers, n_head, d_k, d_v, dropout, n_position, trg_emb_prj_weight_sharing, emb_src_trg_weight_sharing, scale_emb_or_prj)</source>
        <extracomment>config.not_aiayn_key</extracomment>
        <translation>&apos;%1&apos; 不是 &quot;architecture&quot;: &quot;aiayn&quot; 的键，它使用其 Transformer 的参数（d_model, d_inner, n_layers, n_head, d_k, d_v, dropout, n_position, trg_emb_prj_weight_sharing, emb_src_trg_weight_sharing, scale_emb_or_prj）</translation>
    </message>
    <message>
        <source>&apos;d_word_vec&apos; must equal &apos;d_model&apos; (the residual connections add them)</source>
        <extracomment>config.d_word_vec</extracomment>
        <translation>&apos;d_word_vec&apos; 必须等于 &apos;d_model&apos;（残差连接将两者相加）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; differs: %2 vs %3</source>
        <extracomment>config.differs</extracomment>
        <translation>&apos;%1&apos; 不同：%2 与 %3</translation>
    </message>
    <message>
        <source>source</source>
        <extracomment>sentence.source</extracomment>
        <translation>源</translation>
    </message>
    <message>
        <source>target</source>
        <extracomment>sentence.target</extracomment>
        <translation>目标</translation>
    </message>
    <message>
        <source>expected output</source>
        <extracomment>sentence.expected_output</extracomment>
        <translation>期望输出</translation>
    </message>
    <message>
        <source>%1 sentence is empty</source>
        <extracomment>sentence.empty</extracomment>
        <translation>%1句子为空</translation>
    </message>
    <message>
        <source>%1 sentence &apos;%2&apos; has %3 tokens, more than the length %4</source>
        <extracomment>sentence.too_long</extracomment>
        <translation>%1句子 &apos;%2&apos; 有 %3 个词元，超过长度 %4</translation>
    </message>
    <message>
        <source>unknown %1 token &apos;%2&apos; in &apos;%3&apos;; the vocabulary is: %4</source>
        <extracomment>sentence.unknown_token</extracomment>
        <translation>&apos;%3&apos; 中有未知的%1词元 &apos;%2&apos;；词表为：%4</translation>
    </message>
    <message>
        <source>the batch is empty: give at least one sentence</source>
        <extracomment>batch.empty</extracomment>
        <translation>批为空：请至少给出一个句子</translation>
    </message>
    <message>
        <source>the batch is empty: give at least one source sentence</source>
        <extracomment>batch.empty_source</extracomment>
        <translation>批为空：请至少给出一个源句子</translation>
    </message>
    <message>
        <source>this model reads no source sentences, but the batch has %1</source>
        <extracomment>batch.no_source_expected</extracomment>
        <translation>该模型不读取源句子，但批中有 %1 个</translation>
    </message>
    <message>
        <source>the batch has %1 source sentences but %2 target sentences</source>
        <extracomment>batch.count_mismatch</extracomment>
        <translation>批中有 %1 个源句子，却有 %2 个目标句子</translation>
    </message>
    <message>
        <source>the batch has %1 expected outputs for %2 sentences</source>
        <extracomment>batch.outputs_mismatch</extracomment>
        <translation>批中 %2 个句子对应 %1 个期望输出</translation>
    </message>
    <message>
        <source>the layer lab (&quot;structure&quot;: &quot;layers&quot;) has no vocabulary: there is nothing to translate</source>
        <extracomment>decode.no_vocabulary</extracomment>
        <translation>层实验室（&quot;structure&quot;: &quot;layers&quot;）没有词表：没有可翻译的内容</translation>
    </message>
    <message>
        <source>tensor inputs are for the layer lab (&quot;structure&quot;: &quot;layers&quot;)</source>
        <extracomment>lab.not_layers</extracomment>
        <translation>张量输入只用于层实验室（&quot;structure&quot;: &quot;layers&quot;）</translation>
    </message>
    <message>
        <source>%1 has shape %2; the layer takes %3 with d_model = %4</source>
        <extracomment>lab.input_shape</extracomment>
        <translation>%1 的形状为 %2；该层接受 %3，其中 d_model = %4</translation>
    </message>
    <message>
        <source>%1 contains NaN or infinity</source>
        <extracomment>lab.not_finite</extracomment>
        <translation>%1 含有 NaN 或无穷大</translation>
    </message>
    <message>
        <source>the layer lab has a decoder layer: give its input tgt too</source>
        <extracomment>lab.needs_tgt</extracomment>
        <translation>层实验室有解码器层：请同时给出其输入 tgt</translation>
    </message>
    <message>
        <source>src has batch %1 but tgt has batch %2</source>
        <extracomment>lab.batch_mismatch</extracomment>
        <translation>src 的批大小为 %1，但 tgt 的批大小为 %2</translation>
    </message>
    <message>
        <source>a tgt input was given, but the layer lab has no decoder layer (&quot;decoder_layer&quot;: false)</source>
        <extracomment>lab.no_decoder</extracomment>
        <translation>给出了 tgt 输入，但层实验室没有解码器层（&quot;decoder_layer&quot;: false）</translation>
    </message>
    <message>
        <source>%1 has shape %2, the layer needs [%3, %4]</source>
        <extracomment>lab.mask_shape</extracomment>
        <translation>%1 的形状为 %2，该层需要 [%3, %4]</translation>
    </message>
    <message>
        <source>%1 has %2 entries, the layer needs [%3, %4]</source>
        <extracomment>lab.padding_shape</extracomment>
        <translation>%1 有 %2 个元素，该层需要 [%3, %4]</translation>
    </message>
    <message>
        <source>dataset</source>
        <extracomment>data.word</extracomment>
        <translation>数据集</translation>
    </message>
    <message>
        <source>dataset &apos;%1&apos;</source>
        <extracomment>data.named</extracomment>
        <translation>数据集 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>cannot open dataset &apos;%1&apos;</source>
        <extracomment>data.cannot_open</extracomment>
        <translation>无法打开数据集 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>%1 line %2: %3</source>
        <extracomment>data.line</extracomment>
        <translation>%1 第 %2 行：%3</translation>
    </message>
    <message>
        <source>expected 2 columns (source, target) or 3 (enc_input, dec_input, dec_output) separated by tabs, found %1</source>
        <extracomment>data.columns</extracomment>
        <translation>应为 2 列（源、目标）或 3 列（enc_input, dec_input, dec_output），以制表符分隔，实际为 %1 列</translation>
    </message>
    <message>
        <source>column %1 is empty</source>
        <extracomment>data.column_empty</extracomment>
        <translation>第 %1 列为空</translation>
    </message>
    <message>
        <source>dec_input must start with the start token &apos;%1&apos;</source>
        <extracomment>data.no_bos</extracomment>
        <translation>dec_input 必须以起始词元 &apos;%1&apos; 开头</translation>
    </message>
    <message>
        <source>dec_input has %1 tokens but dec_output has %2; they must be the same length (shifted by one)</source>
        <extracomment>data.length_mismatch</extracomment>
        <translation>dec_input 有 %1 个词元，但 dec_output 有 %2 个；两者长度必须相同（错开一位）</translation>
    </message>
    <message>
        <source>%1: no examples (every line is blank or a comment)</source>
        <extracomment>data.no_examples</extracomment>
        <translation>%1：没有样本（每一行都是空行或注释）</translation>
    </message>
    <message>
        <source>%1 (in the dataset)</source>
        <extracomment>data.in_dataset</extracomment>
        <translation>%1（在数据集中）</translation>
    </message>
    <message>
        <source>the dataset is empty</source>
        <extracomment>data.empty</extracomment>
        <translation>数据集为空</translation>
    </message>
    <message>
        <source>example %1: %2</source>
        <extracomment>data.example</extracomment>
        <translation>样本 %1：%2</translation>
    </message>
    <message>
        <source>epochs must be between 1 and 1000000, got %1</source>
        <extracomment>train.epochs</extracomment>
        <translation>训练轮数必须在 1 到 1000000 之间，实际为 %1</translation>
    </message>
    <message>
        <source>batch size must be between 1 and 65536, got %1</source>
        <extracomment>train.batch_size</extracomment>
        <translation>批大小必须在 1 到 65536 之间，实际为 %1</translation>
    </message>
    <message>
        <source>learning rate must be in (0, 100], got %1</source>
        <extracomment>optimizer.lr</extracomment>
        <translation>学习率必须在 (0, 100] 内，实际为 %1</translation>
    </message>
    <message>
        <source>momentum must be in [0, 1), got %1</source>
        <extracomment>optimizer.momentum</extracomment>
        <translation>动量必须在 [0, 1) 内，实际为 %1</translation>
    </message>
    <message>
        <source>Adam betas must be in [0, 1)</source>
        <extracomment>optimizer.betas</extracomment>
        <translation>Adam 的 beta 必须在 [0, 1) 内</translation>
    </message>
    <message>
        <source>Adam eps must be positive</source>
        <extracomment>optimizer.eps</extracomment>
        <translation>Adam 的 eps 必须为正数</translation>
    </message>
    <message>
        <source>warm-up steps must be positive</source>
        <extracomment>optimizer.warmup</extracomment>
        <translation>预热步数必须为正数</translation>
    </message>
    <message>
        <source>weight decay must be at least 0, and below 1 / learning rate, got %1</source>
        <extracomment>optimizer.weight_decay</extracomment>
        <translation>权重衰减必须不小于 0，且小于 1 / 学习率，实际为 %1</translation>
    </message>
    <message>
        <source>unknown optimizer &apos;%1&apos; (use sgd, adam or adamw)</source>
        <extracomment>optimizer.unknown_kind</extracomment>
        <translation>未知的优化器 &apos;%1&apos;（请使用 sgd、adam 或 adamw）</translation>
    </message>
    <message>
        <source>optimizer state: could not read it back from its temporary file</source>
        <extracomment>optimizer_state.spill</extracomment>
        <translation>优化器状态：无法从其临时文件读回</translation>
    </message>
    <message>
        <source>optimizer state: not valid JSON (%1)</source>
        <extracomment>optimizer_state.not_json</extracomment>
        <translation>优化器状态：不是有效的 JSON（%1）</translation>
    </message>
    <message>
        <source>optimizer state: not a JSON object but %1</source>
        <extracomment>optimizer_state.not_object</extracomment>
        <translation>优化器状态：不是 JSON 对象，而是 %1</translation>
    </message>
    <message>
        <source>optimizer state: &quot;kind&quot; must be a string and &quot;step&quot; a whole number (%1)</source>
        <extracomment>optimizer_state.fields</extracomment>
        <translation>优化器状态：&quot;kind&quot; 必须是字符串，&quot;step&quot; 必须是整数（%1）</translation>
    </message>
    <message>
        <source>optimizer state: step %1 is negative</source>
        <extracomment>optimizer_state.negative_step</extracomment>
        <translation>优化器状态：步数 %1 为负</translation>
    </message>
    <message>
        <source>the checkpoint&apos;s optimizer state is for %1, but training uses %2</source>
        <extracomment>optimizer_state.kind</extracomment>
        <translation>检查点中的优化器状态属于 %1，但训练使用 %2</translation>
    </message>
    <message>
        <source>optimizer state: &quot;weight_decay&quot; must be a number of at least 0, got %1</source>
        <extracomment>optimizer_state.weight_decay</extracomment>
        <translation>优化器状态：&quot;weight_decay&quot; 必须是不小于 0 的数，实际为 %1</translation>
    </message>
    <message>
        <source>optimizer state: missing tensor &apos;%1&apos;</source>
        <extracomment>optimizer_state.missing_tensor</extracomment>
        <translation>优化器状态：缺少张量 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>optimizer state: &apos;%1&apos; has shape %2, expected %3</source>
        <extracomment>optimizer_state.shape</extracomment>
        <translation>优化器状态：&apos;%1&apos; 的形状为 %2，应为 %3</translation>
    </message>
    <message>
        <source>cannot write file: empty path</source>
        <extracomment>file.empty_path</extracomment>
        <translation>无法写入文件：路径为空</translation>
    </message>
    <message>
        <source>cannot create a temporary file to write &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_create_temp</extracomment>
        <translation>无法创建用于写入 &apos;%1&apos; 的临时文件：%2</translation>
    </message>
    <message>
        <source>cannot write &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_write</extracomment>
        <translation>无法写入 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>cannot flush &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_flush</extracomment>
        <translation>无法将 &apos;%1&apos; 写入磁盘：%2</translation>
    </message>
    <message>
        <source>cannot close &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_close</extracomment>
        <translation>无法关闭 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>cannot replace &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_replace</extracomment>
        <translation>无法替换 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>cannot open &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_open</extracomment>
        <translation>无法打开 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>cannot stat &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_stat</extracomment>
        <translation>无法获取 &apos;%1&apos; 的文件信息：%2</translation>
    </message>
    <message>
        <source>cannot read &apos;%1&apos;: %2</source>
        <extracomment>file.cannot_read</extracomment>
        <translation>无法读取 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>safetensors writer</source>
        <extracomment>safetensors.writer</extracomment>
        <translation>safetensors 写入器</translation>
    </message>
    <message>
        <source>file is only %1 bytes, shorter than the 8-byte header length prefix (not a safetensors file?)</source>
        <extracomment>safetensors.too_short</extracomment>
        <translation>文件只有 %1 字节，比 8 字节的头部长度前缀还短（不是 safetensors 文件？）</translation>
    </message>
    <message>
        <source>header length %1 bytes is absurd (limit 100 MB): not a safetensors file, or corrupted</source>
        <extracomment>safetensors.header_absurd</extracomment>
        <translation>头部长度 %1 字节不合理（上限 100 MB）：不是 safetensors 文件，或文件已损坏</translation>
    </message>
    <message>
        <source>header length %1 exceeds the %2 bytes that follow the length prefix (truncated file?)</source>
        <extracomment>safetensors.header_exceeds</extracomment>
        <translation>头部长度 %1 超过长度前缀之后的 %2 字节（文件被截断？）</translation>
    </message>
    <message>
        <source>header is not valid JSON: %1</source>
        <extracomment>safetensors.header_not_json</extracomment>
        <translation>头部不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>header is not a JSON object but a JSON %1</source>
        <extracomment>safetensors.header_not_object</extracomment>
        <translation>头部不是 JSON 对象，而是 JSON %1</translation>
    </message>
    <message>
        <source>duplicate name &apos;%1&apos; in header</source>
        <extracomment>safetensors.duplicate_name</extracomment>
        <translation>头部中有重复的名称 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>__metadata__ must be an object of strings, found a %1</source>
        <extracomment>safetensors.metadata_not_object</extracomment>
        <translation>__metadata__ 必须是由字符串组成的对象，实际为 %1</translation>
    </message>
    <message>
        <source>__metadata__ value for key &apos;%1&apos; is not a string (found a %2)</source>
        <extracomment>safetensors.metadata_not_string</extracomment>
        <translation>__metadata__ 中键 &apos;%1&apos; 的值不是字符串（实际为 %2）</translation>
    </message>
    <message>
        <source>tensor &apos;%1&apos;: %2</source>
        <extracomment>safetensors.tensor</extracomment>
        <translation>张量 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>tensor &apos;%1&apos; (%2, shape %3): %4</source>
        <extracomment>safetensors.tensor_described</extracomment>
        <translation>张量 &apos;%1&apos;（%2，形状 %3）：%4</translation>
    </message>
    <message>
        <source>missing &quot;%1&quot;</source>
        <extracomment>safetensors.missing_field</extracomment>
        <translation>缺少 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>&quot;dtype&quot; must be a string, found a %1</source>
        <extracomment>safetensors.dtype_not_string</extracomment>
        <translation>&quot;dtype&quot; 必须是字符串，实际为 %1</translation>
    </message>
    <message>
        <source>unknown dtype &apos;%1&apos; (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL)</source>
        <extracomment>safetensors.unknown_dtype</extracomment>
        <translation>未知的 dtype &apos;%1&apos;（支持：F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL）</translation>
    </message>
    <message>
        <source>&quot;shape&quot; must be a list of integers, found a %1</source>
        <extracomment>safetensors.shape_not_list</extracomment>
        <translation>&quot;shape&quot; 必须是整数列表，实际为 %1</translation>
    </message>
    <message>
        <source>&quot;shape&quot; must be a list of integers, found %1</source>
        <extracomment>safetensors.shape_not_integer</extracomment>
        <translation>&quot;shape&quot; 必须是整数列表，其中有 %1</translation>
    </message>
    <message>
        <source>negative dimension %1 in shape %2</source>
        <extracomment>safetensors.negative_dimension</extracomment>
        <translation>形状 %2 中有负的维度 %1</translation>
    </message>
    <message>
        <source>&quot;data_offsets&quot; must be two non-negative integers [begin, end], found %1</source>
        <extracomment>safetensors.offsets_not_pair</extracomment>
        <translation>&quot;data_offsets&quot; 必须是两个非负整数 [begin, end]，实际为 %1</translation>
    </message>
    <message>
        <source>entry must be an object with dtype, shape and data_offsets, found a %1</source>
        <extracomment>safetensors.entry_not_object</extracomment>
        <translation>条目必须是包含 &quot;dtype&quot;、&quot;shape&quot; 和 &quot;data_offsets&quot; 的对象，实际为 %1</translation>
    </message>
    <message>
        <source>data_offsets %1 have begin &gt; end</source>
        <extracomment>safetensors.offsets_reversed</extracomment>
        <translation>data_offsets %1 的起点大于终点</translation>
    </message>
    <message>
        <source>data_offsets %1 out of range of the %2-byte data section</source>
        <extracomment>safetensors.offsets_out_of_range</extracomment>
        <translation>data_offsets %1 超出 %2 字节的数据区</translation>
    </message>
    <message>
        <source>byte size mismatch: expected %1 bytes (%2 elements x %3 bytes) but found %4 bytes in data_offsets %5</source>
        <extracomment>safetensors.byte_size_mismatch</extracomment>
        <translation>字节数不符：应为 %1 字节（%2 个元素 x %3 字节），但 data_offsets %5 中是 %4 字节</translation>
    </message>
    <message>
        <source>tensors &apos;%1&apos; %2 and &apos;%3&apos; %4 overlap in the data section</source>
        <extracomment>safetensors.overlap</extracomment>
        <translation>张量 &apos;%1&apos; %2 与 &apos;%3&apos; %4 在数据区中重叠</translation>
    </message>
    <message>
        <source>tensor #%1 has an empty name</source>
        <extracomment>safetensors.empty_tensor_name</extracomment>
        <translation>张量 #%1 的名称为空</translation>
    </message>
    <message>
        <source>tensor name &apos;__metadata__&apos; is reserved for the metadata</source>
        <extracomment>safetensors.reserved_name</extracomment>
        <translation>张量名 &apos;__metadata__&apos; 保留给元数据</translation>
    </message>
    <message>
        <source>duplicate tensor name &apos;%1&apos;</source>
        <extracomment>safetensors.duplicate_tensor</extracomment>
        <translation>重复的张量名 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>shape %1 does not match its %2 values</source>
        <extracomment>safetensors.shape_values</extracomment>
        <translation>形状 %1 与其 %2 个数值不符</translation>
    </message>
    <message>
        <source>value %1 at index %2 does not fit %3</source>
        <extracomment>safetensors.value_does_not_fit</extracomment>
        <translation>索引 %2 处的值 %1 超出 %3 的范围</translation>
    </message>
    <message>
        <source>cannot write dtype %1 (supported: F32, I64, U8, BOOL)</source>
        <extracomment>safetensors.cannot_write_dtype</extracomment>
        <translation>无法写入 dtype %1（支持：F32, I64, U8, BOOL）</translation>
    </message>
    <message>
        <source>cannot encode header: %1</source>
        <extracomment>safetensors.cannot_encode_header</extracomment>
        <translation>无法编码头部：%1</translation>
    </message>
    <message>
        <source>shape %1 is too long for a .npy v1.0 header</source>
        <extracomment>npy.header_too_long</extracomment>
        <translation>形状 %1 对 .npy v1.0 头部来说太长</translation>
    </message>
    <message>
        <source>malformed .npy header (%1): %2</source>
        <extracomment>npy.malformed</extracomment>
        <translation>.npy 头部格式错误（%1）：%2</translation>
    </message>
    <message>
        <source>structured (record) dtypes are not supported</source>
        <extracomment>npy.record_dtype</extracomment>
        <translation>不支持结构化 dtype</translation>
    </message>
    <message>
        <source>unexpected key &apos;%1&apos;</source>
        <extracomment>npy.unexpected_key</extracomment>
        <translation>意外的键 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>header lacks &apos;descr&apos;, &apos;fortran_order&apos; or &apos;shape&apos;</source>
        <extracomment>npy.missing_keys</extracomment>
        <translation>头部缺少 &apos;descr&apos;、&apos;fortran_order&apos; 或 &apos;shape&apos;</translation>
    </message>
    <message>
        <source>expected &apos;%1&apos;</source>
        <extracomment>npy.expected_char</extracomment>
        <translation>应为 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>expected a quoted string</source>
        <extracomment>npy.expected_string</extracomment>
        <translation>应为带引号的字符串</translation>
    </message>
    <message>
        <source>unterminated string</source>
        <extracomment>npy.unterminated_string</extracomment>
        <translation>字符串没有结束</translation>
    </message>
    <message>
        <source>expected True or False</source>
        <extracomment>npy.expected_boolean</extracomment>
        <translation>应为 True 或 False</translation>
    </message>
    <message>
        <source>expected a non-negative integer dimension</source>
        <extracomment>npy.expected_dimension</extracomment>
        <translation>应为非负整数维度</translation>
    </message>
    <message>
        <source>not a .npy file (missing the \x93NUMPY magic)</source>
        <extracomment>npy.not_npy</extracomment>
        <translation>不是 .npy 文件（缺少 \x93NUMPY 魔数）</translation>
    </message>
    <message>
        <source>unsupported .npy format version %1.%2</source>
        <extracomment>npy.version</extracomment>
        <translation>不支持的 .npy 格式版本 %1.%2</translation>
    </message>
    <message>
        <source>file truncated inside the .npy preamble</source>
        <extracomment>npy.truncated_preamble</extracomment>
        <translation>文件在 .npy 前导部分内被截断</translation>
    </message>
    <message>
        <source>header length %1 exceeds the file size (truncated file?)</source>
        <extracomment>npy.header_exceeds</extracomment>
        <translation>头部长度 %1 超过文件大小（文件被截断？）</translation>
    </message>
    <message>
        <source>unsupported dtype &apos;%1&apos; (only &apos;&lt;f4&apos; and &apos;&lt;f8&apos; are supported)</source>
        <extracomment>npy.dtype</extracomment>
        <translation>不支持的 dtype &apos;%1&apos;（只支持 &apos;&lt;f4&apos; 和 &apos;&lt;f8&apos;）</translation>
    </message>
    <message>
        <source>shape %1 does not match %2 values</source>
        <extracomment>npy.shape_values</extracomment>
        <translation>形状 %1 与 %2 个数值不符</translation>
    </message>
    <message>
        <source>Fortran-order arrays are not supported (save a C-order array, e.g. np.ascontiguousarray)</source>
        <extracomment>npy.fortran_order</extracomment>
        <translation>不支持 Fortran 顺序的数组（请保存 C 顺序的数组，例如用 np.ascontiguousarray）</translation>
    </message>
    <message>
        <source>data is %1 bytes but shape %2 of &apos;%3&apos; needs %4</source>
        <extracomment>npy.data_size</extracomment>
        <translation>数据有 %1 字节，但 &apos;%3&apos; 的形状 %2 需要 %4 字节</translation>
    </message>
    <message>
        <source>data is %1 bytes but shape %2 of &apos;%3&apos; needs %4 (truncated file?)</source>
        <extracomment>npy.data_truncated</extracomment>
        <translation>数据有 %1 字节，但 &apos;%3&apos; 的形状 %2 需要 %4 字节（文件被截断？）</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos;: %2</source>
        <extracomment>weights.in_file</extracomment>
        <translation>权重 &apos;%1&apos;：%2</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos; were made for a different model than the given config: %2</source>
        <extracomment>weights.other_model</extracomment>
        <translation>权重 &apos;%1&apos; 是为与给定配置不同的模型制作的：%2</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos; carry no config (no &apos;stepformer.config&apos; in __metadata__) and are not the tutorial&apos;s model: %2; pass their config with --config</source>
        <extracomment>weights.not_tutorial</extracomment>
        <translation>权重 &apos;%1&apos; 没有配置（__metadata__ 中没有 &apos;stepformer.config&apos;），也不是教程的模型：%2；请用 --config 给出其配置</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos; hold PyTorch&apos;s nn.Transformer layers (&apos;%2&apos;) but carry no config: pass one with &quot;architecture&quot;: &quot;torch&quot; and the model&apos;s sizes with --config</source>
        <extracomment>weights.torch_without_config</extracomment>
        <translation>权重 &apos;%1&apos; 含有 PyTorch 的 nn.Transformer 层（&apos;%2&apos;），但没有配置：请用 --config 给出一个含 &quot;architecture&quot;: &quot;torch&quot; 和模型尺寸的配置</translation>
    </message>
    <message>
        <source>LayerNorm parameter &apos;%1&apos; %2, but the config has &quot;learn_layer_norm&quot;: false (gamma fixed at 1, beta at 0, as the tutorial does); set &quot;learn_layer_norm&quot;: true in the config to use learned LayerNorm</source>
        <extracomment>weights.layer_norm_learned</extracomment>
        <translation>LayerNorm 参数 &apos;%1&apos; %2，但配置中 &quot;learn_layer_norm&quot;: false（gamma 固定为 1，beta 固定为 0，与教程相同）；要使用可学习的 LayerNorm，请在配置中设置 &quot;learn_layer_norm&quot;: true</translation>
    </message>
    <message>
        <source>LayerNorm parameter &apos;%1&apos; %2, but the config has &quot;learn_layer_norm&quot;: false (gamma fixed at 1, beta at 0, as the tutorial does); set &quot;learn_layer_norm&quot;: true in the config to use learned LayerNorm (these weights come from an earlier Stepformer that trained them)</source>
        <extracomment>weights.layer_norm_learned_earlier</extracomment>
        <translation>LayerNorm 参数 &apos;%1&apos; %2，但配置中 &quot;learn_layer_norm&quot;: false（gamma 固定为 1，beta 固定为 0，与教程相同）；要使用可学习的 LayerNorm，请在配置中设置 &quot;learn_layer_norm&quot;: true（这些权重来自训练过它们的早期版本 Stepformer）</translation>
    </message>
    <message>
        <source>holds %1 at index %2</source>
        <extracomment>weights.holds_value</extracomment>
        <translation>在索引 %2 处的值为 %1</translation>
    </message>
    <message>
        <source>has shape %1</source>
        <extracomment>weights.has_shape</extracomment>
        <translation>的形状为 %1</translation>
    </message>
    <message>
        <source>unexpected tensor &apos;%1&apos; %2 (not a parameter of a model with %3)</source>
        <extracomment>weights.unexpected_tensor</extracomment>
        <translation>意外的张量 &apos;%1&apos; %2（不是 %3 的模型的参数）</translation>
    </message>
    <message>
        <source>missing parameter &apos;%1&apos; (expected shape %2)</source>
        <extracomment>weights.missing_parameter</extracomment>
        <translation>缺少参数 &apos;%1&apos;（应为形状 %2）</translation>
    </message>
    <message>
        <source>missing parameter &apos;%1&apos; (the tutorial&apos;s is shape %2)</source>
        <extracomment>weights.missing_parameter_tutorial</extracomment>
        <translation>缺少参数 &apos;%1&apos;（教程中的形状为 %2）</translation>
    </message>
    <message>
        <source>parameter &apos;%1&apos; has shape %2, expected %3</source>
        <extracomment>weights.parameter_shape</extracomment>
        <translation>参数 &apos;%1&apos; 的形状为 %2，应为 %3</translation>
    </message>
    <message>
        <source>parameter &apos;%1&apos; has shape %2, the tutorial&apos;s is %3</source>
        <extracomment>weights.parameter_shape_tutorial</extracomment>
        <translation>参数 &apos;%1&apos; 的形状为 %2，教程中为 %3</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is &apos;%2&apos; in this config (weight sharing), but the file holds other values under it; set the sharing option to false if the model was trained without it</source>
        <extracomment>weights.shared_differs</extracomment>
        <translation>在此配置中 &apos;%1&apos; 就是 &apos;%2&apos;（权重共享），但文件中该名称下的数值不同；如果模型训练时没有共享这一权重，请将相应的共享选项设为 false</translation>
    </message>
    <message>
        <source>no parameters</source>
        <extracomment>weights.none</extracomment>
        <translation>没有参数</translation>
    </message>
    <message>
        <source>parameter set has %1 tensors, the config needs %2</source>
        <extracomment>weights.count</extracomment>
        <translation>参数集有 %1 个张量，配置需要 %2 个</translation>
    </message>
    <message>
        <source>parameter %1 is &apos;%2&apos; %3, expected &apos;%4&apos; %5</source>
        <extracomment>weights.parameter_mismatch</extracomment>
        <translation>参数 %1 是 &apos;%2&apos; %3，应为 &apos;%4&apos; %5</translation>
    </message>
    <message>
        <source>unknown backend &apos;%1&apos; (use cpu, gpu or auto)</source>
        <extracomment>backend.unknown_choice</extracomment>
        <translation>未知的后端 &apos;%1&apos;（请使用 &apos;cpu&apos;、&apos;gpu&apos; 或 &apos;auto&apos;）</translation>
    </message>
    <message>
        <source>unknown backend &apos;%1&apos; (available: %2)</source>
        <extracomment>backend.unknown</extracomment>
        <translation>未知的后端 &apos;%1&apos;（可用：%2）</translation>
    </message>
    <message>
        <source>--backend gpu: %1</source>
        <extracomment>backend.gpu_unavailable</extracomment>
        <translation>--backend gpu：%1</translation>
    </message>
    <message>
        <source>no Vulkan device or driver on this machine</source>
        <extracomment>backend.no_vulkan_device</extracomment>
        <translation>本机没有 Vulkan 设备或驱动</translation>
    </message>
    <message>
        <source>no usable Vulkan GPU</source>
        <extracomment>backend.no_usable_gpu</extracomment>
        <translation>没有可用的 Vulkan GPU</translation>
    </message>
    <message>
        <source>the only Vulkan device, %1, runs on the CPU (ask for it with --backend gpu)</source>
        <extracomment>backend.only_cpu_device</extracomment>
        <translation>唯一的 Vulkan 设备 %1 运行在 CPU 上（可用 --backend gpu 指定使用它）</translation>
    </message>
    <message>
        <source>%1; %2: %3</source>
        <extracomment>backend.unusable_device</extracomment>
        <translation>%1；%2：%3</translation>
    </message>
    <message>
        <source>this build has no GPU backend (it needs libvulkan-dev and glslc when built)</source>
        <extracomment>backend.not_built</extracomment>
        <translation>此版本没有 GPU 后端（构建时需要 libvulkan-dev 和 glslc）</translation>
    </message>
    <message>
        <source>the GPU stopped working (device lost, in %1); the CPU can take over with the same weights</source>
        <extracomment>gpu.device_lost</extracomment>
        <translation>GPU 停止工作（设备丢失，发生在 %1 中）；CPU 可以用同样的权重接手</translation>
    </message>
    <message>
        <source>%1: the GPU is out of memory</source>
        <extracomment>gpu.out_of_memory</extracomment>
        <translation>%1：GPU 内存不足</translation>
    </message>
    <message>
        <source>%1 failed (VkResult %2)</source>
        <extracomment>gpu.call_failed</extracomment>
        <translation>%1 失败（VkResult %2）</translation>
    </message>
    <message>
        <source>no Vulkan instance (is a Vulkan driver installed?)</source>
        <extracomment>gpu.no_instance</extracomment>
        <translation>没有 Vulkan 实例（是否安装了 Vulkan 驱动？）</translation>
    </message>
    <message>
        <source>no Vulkan device %1</source>
        <extracomment>gpu.no_device</extracomment>
        <translation>没有 Vulkan 设备 %1</translation>
    </message>
    <message>
        <source>the Vulkan device %1 cannot be used: %2</source>
        <extracomment>gpu.device_unusable</extracomment>
        <translation>Vulkan 设备 %1 无法使用：%2</translation>
    </message>
    <message>
        <source>the Vulkan device has no host-visible memory</source>
        <extracomment>gpu.no_host_memory</extracomment>
        <translation>该 Vulkan 设备没有主机可见的内存</translation>
    </message>
    <message>
        <source>no usable Vulkan device</source>
        <extracomment>gpu.no_usable_device</extracomment>
        <translation>没有可用的 Vulkan 设备</translation>
    </message>
    <message>
        <source>finished %1 steps</source>
        <extracomment>train.finished</extracomment>
        <translation>已完成 %1 步</translation>
    </message>
    <message>
        <source>stopped after %1 steps</source>
        <extracomment>train.stopped</extracomment>
        <translation>在 %1 步后停止</translation>
    </message>
    <message>
        <source>%1 became %2 at step %3 (epoch %4); training stopped and the last good weights were kept. Try a smaller learning rate.</source>
        <extracomment>train.diverged</extracomment>
        <translation>%1在第 %3 步（第 %4 轮）变为 %2；训练已停止，并保留了最后一组正常的权重。请尝试更小的学习率。</translation>
    </message>
    <message>
        <source>the gradient</source>
        <extracomment>train.the_gradient</extracomment>
        <translation>梯度</translation>
    </message>
    <message>
        <source>the loss</source>
        <extracomment>train.the_loss</extracomment>
        <translation>损失</translation>
    </message>
    <message>
        <source>infinite</source>
        <extracomment>train.infinite</extracomment>
        <translation>无穷大</translation>
    </message>
    <message>
        <source>the device stopped working at step %1 (%2); the weights of step %3 were kept</source>
        <extracomment>train.device_lost</extracomment>
        <translation>设备在第 %1 步停止工作（%2）；保留了第 %3 步的权重</translation>
    </message>
    <message>
        <source>%1 LayerNorm gamma/beta in the file are exactly 1 and 0 and were skipped (not learned)</source>
        <extracomment>weights.norms_skipped</extracomment>
        <translation>文件中有 %1 个 LayerNorm 的 gamma/beta 恰好为 1 和 0，已跳过（不作为可学习参数）</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos; were saved by an earlier Stepformer that trained LayerNorm gamma/beta; opened with &quot;learn_layer_norm&quot;: true so their numbers are unchanged. The tutorial keeps gamma = 1, beta = 0: retrain from the initial weights to follow it</source>
        <extracomment>weights.earlier_learned_norms</extracomment>
        <translation>权重 &apos;%1&apos; 由早期版本的 Stepformer 保存，当时训练了 LayerNorm 的 gamma/beta；已按 &quot;learn_layer_norm&quot;: true 打开，数值保持不变。教程固定 gamma = 1、beta = 0：若要与教程一致，请从初始权重重新训练</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos;: the positional buffer &apos;%2&apos; has shape %3; it is ignored and the sinusoid table recomputed</source>
        <extracomment>weights.positional_shape</extracomment>
        <translation>权重 &apos;%1&apos;：位置缓冲区 &apos;%2&apos; 的形状为 %3；已忽略它并重新计算正弦表</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos;: the positional buffer &apos;%2&apos; is not the sinusoid table (max |Δ| %3); the model recomputes the sinusoid table and does not use the file&apos;s</source>
        <extracomment>weights.positional_not_sinusoid</extracomment>
        <translation>权重 &apos;%1&apos;：位置缓冲区 &apos;%2&apos; 不是正弦表（最大 |Δ| 为 %3）；模型会重新计算正弦表，不使用文件中的值</translation>
    </message>
    <message>
        <source>&apos;architecture&apos; must be one of %2, got &quot;%1&quot;</source>
        <extracomment>config.architecture_one_of</extracomment>
        <translation>&apos;architecture&apos; 必须是 %2 之一，实际为 &quot;%1&quot;</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a key of &quot;architecture&quot;: &quot;gpt&quot;; nanoGPT&apos;s GPTConfig calls it &apos;%2&apos;</source>
        <extracomment>config.not_gpt_key</extracomment>
        <translation>&apos;%1&apos; 不是 &quot;architecture&quot;: &quot;gpt&quot; 的键；nanoGPT 的 GPTConfig 中它叫 &apos;%2&apos;</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a key of &quot;architecture&quot;: &quot;gpt&quot;, which takes nanoGPT&apos;s GPTConfig fields (block_size, n_layer, n_head, n_embd, dropout, bias) and the words: vocab, pad, bos, eos</source>
        <extracomment>config.not_gpt_key_at_all</extracomment>
        <translation>&apos;%1&apos; 不是 &quot;architecture&quot;: &quot;gpt&quot; 的键；该架构使用 nanoGPT 的 GPTConfig 字段（block_size, n_layer, n_head, n_embd, dropout, bias）以及这些词：vocab, pad, bos, eos</translation>
    </message>
    <message>
        <source>&apos;n_embd&apos; (%1) must be divisible by &apos;n_head&apos; (%2): each head gets n_embd / n_head features</source>
        <extracomment>config.gpt_heads</extracomment>
        <translation>&apos;n_embd&apos;（%1）必须能被 &apos;n_head&apos;（%2）整除：每个头分得 n_embd / n_head 个特征</translation>
    </message>
    <message>
        <source>the sentence &apos;%1&apos; has %2 tokens, more than block_size %3 (the longest sequence the model&apos;s positions reach)</source>
        <extracomment>sentence.over_block_size</extracomment>
        <translation>句子 &apos;%1&apos; 有 %2 个词元，超过了 block_size %3（模型的位置所能覆盖的最长序列）</translation>
    </message>
    <message>
        <source>the batch&apos;s sequences have %1 positions, more than block_size %2</source>
        <extracomment>batch.over_block_size</extracomment>
        <translation>该批的序列有 %1 个位置，超过了 block_size %2</translation>
    </message>
    <message>
        <source>weights &apos;%1&apos;: &apos;%2&apos; is not the causal mask nanoGPT registers there (ones on and below the diagonal, shape [1, 1, %3, %3]); found %4</source>
        <extracomment>weights.not_causal_buffer</extracomment>
        <translation>权重 &apos;%1&apos;：&apos;%2&apos; 不是 nanoGPT 在此注册的因果掩码（对角线及其以下为 1，形状为 [1, 1, %3, %3]）；实际为 %4</translation>
    </message>
    <message>
        <source>generating from a prompt is for a model without a source sentence (&quot;architecture&quot;: &quot;gpt&quot;); this model translates a source sentence</source>
        <extracomment>generate.needs_decoder_only</extracomment>
        <translation>从提示词生成只适用于没有源句子的模型（&quot;architecture&quot;: &quot;gpt&quot;）；这个模型翻译源句子</translation>
    </message>
    <message>
        <source>the prompt is empty: give at least one word (the start word first, as the training sentences begin)</source>
        <extracomment>generate.empty_prompt</extracomment>
        <translation>提示词为空：请至少给出一个词（以起始词开头，和训练句子的开头一样）</translation>
    </message>
    <message>
        <source>this is a PyTorch checkpoint (a zip archive, as torch.save writes), not a safetensors file: convert it with scripts/pth_to_safetensors.py (python3 scripts/pth_to_safetensors.py MODEL.pth MODEL.safetensors)</source>
        <extracomment>safetensors.pytorch_zip</extracomment>
        <translation>这是 PyTorch 检查点（torch.save 写出的 ZIP 压缩包），不是 safetensors 文件：请用 &quot;python3 scripts/pth_to_safetensors.py MODEL.pth MODEL.safetensors&quot; 转换</translation>
    </message>
    <message>
        <source>this is a PyTorch checkpoint (a Python pickle, as older torch.save writes), not a safetensors file: convert it with scripts/pth_to_safetensors.py (python3 scripts/pth_to_safetensors.py MODEL.pth MODEL.safetensors)</source>
        <extracomment>safetensors.pytorch_pickle</extracomment>
        <translation>这是 PyTorch 检查点（旧版 torch.save 写出的 Python 序列化文件），不是 safetensors 文件：请用 &quot;python3 scripts/pth_to_safetensors.py MODEL.pth MODEL.safetensors&quot; 转换</translation>
    </message>
    <message>
        <source>STEPFORMER_CPU_KERNELS=%1: not a kernel set this CPU runs (it runs: %2)</source>
        <extracomment>backend.cpu_kernels</extracomment>
        <translation>STEPFORMER_CPU_KERNELS=%1：这台 CPU 无法运行此内核集（可运行：%2）</translation>
    </message>
    <message>
        <source>training cannot start from these weights: %1</source>
        <extracomment>train.weights_not_finite</extracomment>
        <translation>无法从这些权重开始训练：%1</translation>
    </message>
    <message>
        <source>shape dimension %1 is larger than 2^63 - 1</source>
        <extracomment>safetensors.dimension_too_large</extracomment>
        <translation>形状的维度 %1 大于 2^63 - 1</translation>
    </message>
    <message>
        <source>the shape needs more than 2^64 bytes (16 EiB): no file can hold it</source>
        <extracomment>safetensors.shape_too_large</extracomment>
        <translation>该形状需要超过 2^64 字节（16 EiB）：任何文件都装不下</translation>
    </message>
    <message>
        <source>shape %1 needs more than 2^64 bytes (16 EiB): no file can hold it</source>
        <extracomment>npy.shape_too_large</extracomment>
        <translation>形状 %1 需要超过 2^64 字节（16 EiB）：任何文件都装不下</translation>
    </message>
    <message>
        <source>parameter &apos;%1&apos; holds %2 NaN or infinite values (the first, %3, at entry %4)</source>
        <extracomment>weights.parameter_not_finite</extracomment>
        <translation>参数 &apos;%1&apos; 含有 %2 个 NaN 或无穷大的值（第一个是 %3，位于第 %4 个元素）</translation>
    </message>
    <message>
        <source>STEPFORMER_CPU_GEMM=%1: use eigen, openblas or auto</source>
        <extracomment>backend.cpu_gemm</extracomment>
        <translation>STEPFORMER_CPU_GEMM=%1：请用 &apos;eigen&apos;、&apos;openblas&apos; 或 &apos;auto&apos;</translation>
    </message>
    <message>
        <source>STEPFORMER_CPU_GEMM=openblas: OpenBLAS&apos;s OpenMP build is not installed (%1; Debian&apos;s libopenblas0-openmp)</source>
        <extracomment>backend.cpu_gemm_missing</extracomment>
        <translation>环境变量 STEPFORMER_CPU_GEMM 要求 &apos;openblas&apos;，但未安装 OpenBLAS 的 OpenMP 版本（%1；软件包 &apos;libopenblas0-openmp&apos;）</translation>
    </message>
</context>
<context>
    <name>DatasetEditor</name>
    <message>
        <source>Add row</source>
        <translation>添加行</translation>
    </message>
    <message>
        <source>Append an example and start editing it.</source>
        <translation>追加一个样例并开始编辑。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Remove the selected rows.</source>
        <translation>删除所选的行。</translation>
    </message>
    <message>
        <source>Import TSV…</source>
        <translation>导入 TSV…</translation>
    </message>
    <message>
        <source>Read a tab-separated file: enc_input, dec_input, dec_output per line, or source and target (the start and end tokens are then added).</source>
        <translation>读取制表符分隔的文件：每行为 enc_input、dec_input、dec_output，或者源句和目标句（此时会自动加上起始和结束词元）。</translation>
    </message>
    <message>
        <source>Export TSV…</source>
        <translation>导出 TSV…</translation>
    </message>
    <message>
        <source>Save the table as a tab-separated file.</source>
        <translation>将表格保存为制表符分隔的文件。</translation>
    </message>
    <message>
        <source>Tutorial&apos;s sentences</source>
        <translation>教程的句子</translation>
    </message>
    <message>
        <source>Go back to the tutorial&apos;s two sentences.</source>
        <translation>恢复为教程的两个句子。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Vocabulary&lt;/b&gt;</source>
        <translation>&lt;b&gt;词表&lt;/b&gt;</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>The dataset is empty: add at least one sentence pair.</source>
        <translation>数据集为空：请至少添加一个句子对。</translation>
    </message>
    <message>
        <source>Dataset row %1: %2</source>
        <translation>数据集第 %1 行：%2</translation>
    </message>
    <message>
        <source>Dataset: %1</source>
        <translation>数据集：%1</translation>
    </message>
    <message>
        <source>Could not import: %1</source>
        <translation>无法导入：%1</translation>
    </message>
    <message>
        <source>Could not import: %1 has no examples (only blank lines or # comments).</source>
        <translation>无法导入：%1 中没有样例（只有空行或 # 注释）。</translation>
    </message>
    <message>
        <source>Imported %1 examples from %2.</source>
        <translation>已从 %2 导入 %1 个样例。</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>… and %1 more rows (see their tooltips).</source>
        <translation>… 另有 %1 行（请查看其工具提示）。</translation>
    </message>
    <message>
        <source>No vocabulary: %1</source>
        <translation>没有词表：%1</translation>
    </message>
    <message>
        <source>id %1</source>
        <translation>id %1</translation>
    </message>
    <message>
        <source> — padding</source>
        <translation> — 填充</translation>
    </message>
    <message>
        <source> — start of the decoder&apos;s input</source>
        <translation> — 解码器输入的起始</translation>
    </message>
    <message>
        <source> — end of the sentence</source>
        <translation> — 句子结束</translation>
    </message>
    <message>
        <source> — new: not in the model&apos;s vocabulary</source>
        <translation> — 新词：不在模型的词表中</translation>
    </message>
    <message>
        <source> — used by no row</source>
        <translation> — 没有任何行使用</translation>
    </message>
    <message>
        <source>Fixed by the checkpoint being resumed.</source>
        <translation>已由要继续训练的检查点固定。</translation>
    </message>
    <message>
        <source>Built from the dataset (new words in orange): the trained model gets this vocabulary.</source>
        <translation>由数据集构建（新词显示为橙色）：训练出的模型将使用这个词表。</translation>
    </message>
    <message>
        <source>The model&apos;s vocabulary covers the dataset, so its token ids are kept (grey: used by no row).</source>
        <translation>模型的词表已覆盖该数据集，因此保留其词元 id（灰色：没有任何行使用）。</translation>
    </message>
    <message>
        <source> src_len %1, tgt_len %2.</source>
        <translation> src_len %1，tgt_len %2。</translation>
    </message>
    <message>
        <source>Import a dataset</source>
        <translation>导入数据集</translation>
    </message>
    <message>
        <source>Tab-separated values (*.tsv *.txt);;All files (*)</source>
        <translation>制表符分隔值 (*.tsv *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export the dataset</source>
        <translation>导出数据集</translation>
    </message>
    <message>
        <source>Tab-separated values (*.tsv)</source>
        <translation>制表符分隔值 (*.tsv)</translation>
    </message>
    <message>
        <source>Saved %1 examples to %2.</source>
        <translation>已将 %1 个样例保存到 %2。</translation>
    </message>
</context>
<context>
    <name>DatasetModel</name>
    <message>
        <source>the tutorial&apos;s</source>
        <translation>教程的</translation>
    </message>
    <message>
        <source>The encoder&apos;s input: the source sentence, padded with &apos;%1&apos; as the tutorial does.</source>
        <translation>编码器的输入：源句子，并像教程那样用 &apos;%1&apos; 填充。</translation>
    </message>
    <message>
        <source>The decoder&apos;s input: &apos;%1&apos; followed by the target sentence.</source>
        <translation>解码器的输入：&apos;%1&apos; 后接目标句子。</translation>
    </message>
    <message>
        <source>What the decoder must output: the target sentence followed by &apos;%1&apos;.</source>
        <translation>解码器应输出的内容：目标句子后接 &apos;%1&apos;。</translation>
    </message>
    <message>
        <source>enc_input is empty.</source>
        <translation>enc_input 为空。</translation>
    </message>
    <message>
        <source>dec_input is empty.</source>
        <translation>dec_input 为空。</translation>
    </message>
    <message>
        <source>dec_input must start with the start token &apos;%1&apos;.</source>
        <translation>dec_input 必须以起始词元 &apos;%1&apos; 开头。</translation>
    </message>
    <message>
        <source>dec_output is empty.</source>
        <translation>dec_output 为空。</translation>
    </message>
    <message>
        <source>dec_input has %1 tokens but dec_output has %2: they must be the same length (dec_output is dec_input shifted left by one, ending with &apos;%3&apos;).</source>
        <translation>dec_input 有 %1 个词元，而 dec_output 有 %2 个：两者长度必须相同（dec_output 是 dec_input 左移一位，并以 &apos;%3&apos; 结尾）。</translation>
    </message>
    <message>
        <source>%1 not in %2 source vocabulary.</source>
        <translation>%1 不在%2源词表中。</translation>
    </message>
    <message>
        <source>%1 not in %2 target vocabulary.</source>
        <translation>%1 不在%2目标词表中。</translation>
    </message>
    <message>
        <source>The source has %1 tokens, longer than %2 src_len of %3 (training lengthens it).</source>
        <translation>源句有 %1 个词元，超过了%2 src_len（%3）（训练时会加长）。</translation>
    </message>
    <message>
        <source>The target has %1 tokens, longer than %2 tgt_len of %3 (training lengthens it).</source>
        <translation>目标句有 %1 个词元，超过了%2 tgt_len（%3）（训练时会加长）。</translation>
    </message>
    <message>
        <source>The vocabulary is fixed by the checkpoint being resumed: remove these words or reset.</source>
        <translation>词表已由要继续训练的检查点固定：请删除这些词或重置。</translation>
    </message>
</context>
<context>
    <name>DecodeStepPage</name>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>next token (target vocabulary)</source>
        <translation>下一个词元（目标词表）</translation>
    </message>
    <message>
        <source>Decode a sentence to see the attention.</source>
        <translation>解码一个句子以查看注意力。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: p = %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;：p = %2</translation>
    </message>
    <message>
        <source>&lt;br&gt;the largest probability: greedy decoding picks it</source>
        <translation>&lt;br&gt;最大概率：贪心解码会选择它</translation>
    </message>
    <message>
        <source>dec_input:</source>
        <translation>dec_input：</translation>
    </message>
    <message>
        <source>What the decoder reads in this forward pass: the start symbol and the tokens chosen so far</source>
        <translation>解码器在这次前向传播中读取的内容：起始符号和目前已选出的词元</translation>
    </message>
    <message>
        <source>position 0: the start symbol %1</source>
        <translation>位置 0：起始符号 %1</translation>
    </message>
    <message>
        <source>position %1: chosen at step %2</source>
        <translation>位置 %1：在第 %2 步选出</translation>
    </message>
    <message>
        <source>argmax of the probabilities at the last position: %1 (p = %2)</source>
        <translation>最后一个位置上概率的 argmax：%1（p = %2）</translation>
    </message>
    <message>
        <source>next token = argmax p = &lt;b&gt;%1&lt;/b&gt; &amp;nbsp;(p = %2)</source>
        <translation>下一个词元 = argmax p = &lt;b&gt;%1&lt;/b&gt; &amp;nbsp;（p = %2）</translation>
    </message>
    <message>
        <source> &amp;nbsp;— the end token: decoding stops</source>
        <translation> &amp;nbsp;— 结束词元：解码停止</translation>
    </message>
    <message>
        <source>Step %1: P(next token | %2) = softmax(logits)</source>
        <translation>第 %1 步：P(下一个词元 | %2) = softmax(logits)</translation>
    </message>
    <message>
        <source>%1 · layer %2 · head %3</source>
        <translation>%1 · 第 %2 层 · 头 %3</translation>
    </message>
    <message>
        <source>&lt;b&gt;Encoder-decoder attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): which source words each decoder token reads. The new row &lt;b&gt;“%2”&lt;/b&gt; decides the next token.</source>
        <translation>&lt;b&gt;编码器-解码器注意力&lt;/b&gt;（&lt;tt&gt;%1&lt;/tt&gt;）：每个解码器词元读取哪些源词。新的一行 &lt;b&gt;“%2”&lt;/b&gt; 决定下一个词元。</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Masked self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each decoder token looks at itself and the tokens before it. %n query rows now; the new one is &lt;b&gt;“%2”&lt;/b&gt;.</source>
        <translation>
            <numerusform>&lt;b&gt;掩码自注意力&lt;/b&gt;（&lt;tt&gt;%1&lt;/tt&gt;）：每个解码器词元关注它自己及其之前的词元。当前有 %n 个查询行；新的一行是 &lt;b&gt;“%2”&lt;/b&gt;。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Causal self-attention&lt;/b&gt; (&lt;tt&gt;%1&lt;/tt&gt;): each token looks at itself and the tokens before it. %n query rows now; the new row &lt;b&gt;“%2”&lt;/b&gt; decides the next word.</source>
        <translation>
            <numerusform>&lt;b&gt;因果自注意力&lt;/b&gt;（&lt;tt&gt;%1&lt;/tt&gt;）：每个词元关注它自己及其之前的词元。当前有 %n 个查询行；新的一行 &lt;b&gt;“%2”&lt;/b&gt; 决定下一个词。</numerusform>
        </translation>
    </message>
    <message>
        <source> — not finite (NaN or ∞): the model&apos;s numbers overflowed</source>
        <translation> — 非有限值（NaN 或 ∞）：模型的数值溢出了</translation>
    </message>
    <message numerus="yes">
        <source>next token: %n words, hover a bar for its word</source>
        <translation>
            <numerusform>下一个词元（目标词表）：共 %n 个词，悬停在柱上可看到它的词</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DecodeView</name>
    <message>
        <source>enc_input: the source sentence the encoder reads once</source>
        <translation>enc_input：编码器只读取一次的源句子</translation>
    </message>
    <message>
        <source>The greedy translation: the tokens chosen so far are dark, the ones still to come are pale</source>
        <translation>贪心翻译：已选出的词元颜色较深，尚未生成的颜色较浅</translation>
    </message>
    <message>
        <source>↺ Reset</source>
        <translation>↺ 重置</translation>
    </message>
    <message>
        <source>Back to the first step: only the start symbol S</source>
        <translation>回到第一步：只有起始符号 S</translation>
    </message>
    <message>
        <source>◀ Back</source>
        <translation>◀ 后退</translation>
    </message>
    <message>
        <source>The previous step</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Step ▶</source>
        <translation>单步 ▶</translation>
    </message>
    <message>
        <source>Run the next forward pass and choose the next token</source>
        <translation>运行下一次前向传播并选出下一个词元</translation>
    </message>
    <message>
        <source>▶ Play</source>
        <translation>▶ 播放</translation>
    </message>
    <message>
        <source>Step automatically until the end token</source>
        <translation>自动单步执行，直到结束词元</translation>
    </message>
    <message>
        <source>Which decoder layer&apos;s attention to show (the last one by default)</source>
        <translation>显示哪个解码器层的注意力（默认为最后一层）</translation>
    </message>
    <message>
        <source>Which attention head to show (the n_heads axis)</source>
        <translation>显示哪个注意力头（n_heads 轴）</translation>
    </message>
    <message>
        <source>Decoder layer:</source>
        <translation>解码器层：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>No model yet — the greedy decoder needs a trained model.</source>
        <translation>尚无模型 — 贪心解码器需要一个训练好的模型。</translation>
    </message>
    <message>
        <source>Decoding…</source>
        <translation>正在解码…</translation>
    </message>
    <message>
        <source>Cannot decode “%1”:
%2</source>
        <translation>无法解码“%1”：
%2</translation>
    </message>
    <message>
        <source>Nothing to decode.</source>
        <translation>没有可解码的内容。</translation>
    </message>
    <message>
        <source>‖ Pause</source>
        <translation>‖ 暂停</translation>
    </message>
    <message>
        <source>Source:</source>
        <translation>源句：</translation>
    </message>
    <message>
        <source>Translation:</source>
        <translation>译文：</translation>
    </message>
    <message>
        <source>decoding…</source>
        <translation>正在解码…</translation>
    </message>
    <message>
        <source>finished: the end token E after %1 steps</source>
        <translation>已完成：%1 步后得到结束词元 E</translation>
    </message>
    <message>
        <source>stopped at tgt_len = %1 without the end token</source>
        <translation>在 tgt_len = %1 处停止，未得到结束词元</translation>
    </message>
    <message>
        <source>Greedy translation: %1</source>
        <translation>贪心翻译：%1</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>Generated:</source>
        <translation>生成结果：</translation>
    </message>
    <message>
        <source>Prompt:</source>
        <translation>提示词：</translation>
    </message>
    <message>
        <source>The prompt: the first two words of the text; the model continues it word by word</source>
        <translation>提示词：文本的前两个词；模型逐词续写</translation>
    </message>
    <message>
        <source>stopped after %1 new words (block_size) without the end token</source>
        <translation>生成 %1 个新词后停止（block_size），未得到结束词元</translation>
    </message>
    <message>
        <source>Generated greedily: %1</source>
        <translation>贪心生成：%1</translation>
    </message>
    <message>
        <source>Decoding “%1”…</source>
        <translation>正在解码“%1”…</translation>
    </message>
</context>
<context>
    <name>DesktopHabits</name>
    <message>
        <source>F&amp;ull Screen</source>
        <translation>全屏(&amp;U)</translation>
    </message>
    <message>
        <source>Fill the screen with the window, for presenting (F11)</source>
        <translation>让窗口占满整个屏幕，便于演示（F11）</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Copied %1</source>
        <translation>已复制 %1</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Stepformer cannot open %1: it opens weights (.safetensors) and datasets (.tsv, one sentence pair per line).</source>
        <translation>Stepformer 无法打开 %1：它只能打开权重（.safetensors）和数据集（.tsv，每行一个句子对）。</translation>
    </message>
    <message>
        <source>Open Recent</source>
        <translation>最近打开</translation>
    </message>
    <message>
        <source>%1 is no longer there; it was taken off the list.</source>
        <translation>%1 已不存在，已从列表中移除。</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>清空列表(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Training Layout</source>
        <translation>训练布局(&amp;T)</translation>
    </message>
    <message>
        <source>Give the Train panel most of the window, for training in front of a class; the same key puts everything back (Ctrl+Shift+T)</source>
        <translation>把窗口的大部分留给训练面板，便于在课堂上演示训练；再按一次同一个键即可复原（Ctrl+Shift+T）</translation>
    </message>
    <message>
        <source>Export Trace as NumPy &amp;Archive (.npz)…</source>
        <translation>将整个前向过程导出为 NumPy 归档(&amp;A)（.npz）…</translation>
    </message>
    <message>
        <source>Save every tensor of this pass in one .npz; np.load(path)[&quot;&lt;step name&gt;&quot;] reads one</source>
        <translation>把这一遍的每个张量存进一个 .npz；用 np.load(文件名)[&quot;&lt;步骤名&gt;&quot;] 读取其中一个</translation>
    </message>
    <message>
        <source>Export &amp;Gradients as NumPy Archive (.npz)…</source>
        <translation>将梯度导出为 NumPy 归档(&amp;G)（.npz）…</translation>
    </message>
    <message>
        <source>Save every gradient of this pass (grad.&lt;step name&gt;) in one .npz</source>
        <translation>把这一遍的每个梯度（grad.&lt;步骤名&gt;）存进一个 .npz</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>&amp;Copy Cells</source>
        <translation>复制单元格(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the heatmap cells dragged over (or chosen with Shift and the arrow keys) with their labels, else the cell under the mouse: its row, its column and its exact value (Ctrl+C; in a text field Ctrl+C copies the text)</source>
        <translation>复制用鼠标拖选（或用 Shift 加方向键选中）的热力图单元格及其标签；没有选区时复制鼠标下的单元格：它的行、列和精确数值（Ctrl+C；在文本框中 Ctrl+C 复制文字）</translation>
    </message>
    <message>
        <source>Copied %1 × %2 cells with their labels (tab-separated)</source>
        <translation>已复制 %1 × %2 个单元格及其标签（以制表符分隔）</translation>
    </message>
    <message>
        <source>Nothing to copy: point at a cell of a heatmap (or drag over several), then press Ctrl+C.</source>
        <translation>没有可复制的内容：请先把鼠标指向热力图的一个单元格（或拖选几个），再按 Ctrl+C。</translation>
    </message>
</context>
<context>
    <name>DeviceAgreement</name>
    <message>
        <source>Which device computed this pass, and how far its numbers are from the CPU&apos;s</source>
        <translation>这次传播由哪个设备计算，以及它的数值与 CPU 的差距有多大</translation>
    </message>
    <message>
        <source>&lt;p&gt;The same pass computed on the CPU backend (the reference) and compared number by number with this step&apos;s tensor.&lt;/p&gt;&lt;p&gt;&lt;b&gt;max |Δ|&lt;/b&gt;: the largest |GPU − CPU| of a number.&lt;br&gt;&lt;b&gt;max relative&lt;/b&gt;: max |Δ| ÷ the largest |CPU| number of the tensor — the difference measured against the tensor&apos;s scale (dividing number by number would explode where the CPU&apos;s number is near 0).&lt;br&gt;&lt;b&gt;differ&lt;/b&gt;: the numbers that are not exactly equal.&lt;/p&gt;&lt;p&gt;NaN and ∞ are never part of max |Δ|: they are counted and reported on their own line.&lt;/p&gt;</source>
        <translation>&lt;p&gt;在 CPU 后端（参考实现）上计算同一次传播，并与此步骤的张量逐个数值比较。&lt;/p&gt;&lt;p&gt;&lt;b&gt;max |Δ|&lt;/b&gt;：单个数值的 |GPU − CPU| 的最大值。&lt;br&gt;&lt;b&gt;最大相对差&lt;/b&gt;：max |Δ| ÷ 该张量中最大的 |CPU| 数值 — 即相对于张量量级衡量的差异（若逐个数值相除，在 CPU 数值接近 0 处会急剧放大）。&lt;br&gt;&lt;b&gt;不同&lt;/b&gt;：不完全相等的数值。&lt;/p&gt;&lt;p&gt;NaN 和 ∞ 从不计入 max |Δ|：它们会被单独计数，并在单独一行中报告。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Compare with the CPU</source>
        <translation>与 CPU 比较</translation>
    </message>
    <message>
        <source>Compute this pass again on the CPU backend (the reference) and compare every step&apos;s numbers with this device&apos;s. Takes about as long as the pass; done once per pass.</source>
        <translation>在 CPU 后端（参考实现）上重新计算这次传播，并将每个步骤的数值与此设备的结果比较。耗时与这次传播大致相同；每次传播只做一次。</translation>
    </message>
    <message>
        <source>Show the difference</source>
        <translation>显示差异</translation>
    </message>
    <message>
        <source>Show GPU − CPU for this step as a heatmap: white = equal, red = the GPU&apos;s number is larger, blue = smaller; where float rounding differs</source>
        <translation>以热力图显示此步骤的 GPU − CPU：白色 = 相等，红色 = GPU 的数值更大，蓝色 = 更小；即浮点舍入不同之处</translation>
    </message>
    <message>
        <source>GPU − CPU for this step&apos;s numbers</source>
        <translation>此步骤数值的 GPU − CPU</translation>
    </message>
    <message>
        <source>Which part of the tensor the heatmap shows, and where its largest difference is</source>
        <translation>热力图显示张量的哪一部分，以及最大差异位于何处</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Which attention head of the difference to show (the n_heads axis)</source>
        <translation>显示哪个注意力头的差异（n_heads 轴）</translation>
    </message>
    <message>
        <source>GPU − CPU, number by number (hover a cell for both numbers)</source>
        <translation>GPU − CPU，逐个数值（悬停单元格可查看两个数值）</translation>
    </message>
    <message>
        <source>GPU − CPU</source>
        <translation>GPU − CPU</translation>
    </message>
    <message>
        <source>“%1” is not in this pass</source>
        <translation>“%1”不在这次传播中</translation>
    </message>
    <message>
        <source>“%1” is not in the CPU’s pass</source>
        <translation>“%1”不在 CPU 的传播中</translation>
    </message>
    <message>
        <source>Computed on &lt;b&gt;%1&lt;/b&gt;&lt;br&gt;computing the same pass on the CPU…</source>
        <translation>在 &lt;b&gt;%1&lt;/b&gt; 上计算&lt;br&gt;正在 CPU 上计算同一次传播…</translation>
    </message>
    <message>
        <source>it gave no trace</source>
        <translation>它没有给出追踪</translation>
    </message>
    <message>
        <source>an unknown error</source>
        <translation>未知错误</translation>
    </message>
    <message>
        <source>Press &lt;i&gt;Compare with the CPU&lt;/i&gt; to see how far this step is from the CPU’s numbers.</source>
        <translation>按下&lt;i&gt;与 CPU 比较&lt;/i&gt;，查看此步骤与 CPU 的数值相差多少。</translation>
    </message>
    <message>
        <source>Could not compute the pass on the CPU: %1</source>
        <translation>无法在 CPU 上计算这次传播：%1</translation>
    </message>
    <message>
        <source>vs CPU: choose a step to compare it.</source>
        <translation>与 CPU 比较：请选择一个步骤进行比较。</translation>
    </message>
    <message>
        <source>vs CPU: %1.</source>
        <translation>与 CPU 比较：%1。</translation>
    </message>
    <message>
        <source>vs CPU: cannot compare — %1.</source>
        <translation>与 CPU 比较：无法比较 — %1。</translation>
    </message>
    <message>
        <source>identical to the CPU (bit for bit)</source>
        <translation>与 CPU 完全相同（逐位一致）</translation>
    </message>
    <message>
        <source>the same values as the CPU (not bit for bit: the sign of a zero or a NaN’s bits differ)</source>
        <translation>数值与 CPU 相同（但并非逐位一致：零的符号或 NaN 的位不同）</translation>
    </message>
    <message>
        <source>vs CPU: max |Δ| %1, max relative %2 (%3 of %4 numbers differ)</source>
        <translation>与 CPU 比较：max |Δ| %1，最大相对差 %2（%4 个数值中有 %3 个不同）</translation>
    </message>
    <message>
        <source>1 number is NaN or ∞ on one side only</source>
        <translation>有 1 个数值仅在一侧为 NaN 或 ∞</translation>
    </message>
    <message>
        <source>%1 numbers are NaN or ∞ on one side only</source>
        <translation>有 %1 个数值仅在一侧为 NaN 或 ∞</translation>
    </message>
    <message>
        <source>(GPU: %1 NaN, %2 ∞; CPU: %3 NaN, %4 ∞); max |Δ| is over the finite numbers.</source>
        <translation>（GPU：%1 个 NaN，%2 个 ∞；CPU：%3 个 NaN，%4 个 ∞）；max |Δ| 只统计有限数值。</translation>
    </message>
    <message>
        <source>Both have NaN or ∞ at the same places (%1 NaN, %2 ∞); max |Δ| is over the finite numbers.</source>
        <translation>两者在相同位置上有 NaN 或 ∞（%1 个 NaN，%2 个 ∞）；max |Δ| 只统计有限数值。</translation>
    </message>
    <message>
        <source>Computed on &lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2</source>
        <translation>在 &lt;b&gt;%1&lt;/b&gt; 上计算&lt;br&gt;%2</translation>
    </message>
    <message>
        <source>GPU: %1</source>
        <translation>GPU：%1</translation>
    </message>
    <message>
        <source>CPU: %1</source>
        <translation>CPU：%1</translation>
    </message>
    <message>
        <source>GPU − CPU: %1</source>
        <translation>GPU − CPU：%1</translation>
    </message>
    <message>
        <source>%1 = 0</source>
        <translation>%1 = 0</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <source>Showing the slice %1 (the first sentence).</source>
        <translation>显示切片 %1（第一个句子）。</translation>
    </message>
    <message>
        <source>Largest |Δ| of the whole tensor at %1.</source>
        <translation>整个张量中最大的 |Δ| 位于 %1。</translation>
    </message>
</context>
<context>
    <name>DeviceChooser</name>
    <message>
        <source>&amp;Compute On</source>
        <translation>计算设备(&amp;C)</translation>
    </message>
    <message>
        <source>Compute every tensor with the CPU backend (Eigen), the reference the GPU is checked against</source>
        <translation>用 CPU 后端（Eigen）计算每个张量，它是检验 GPU 结果的参考</translation>
    </message>
    <message>
        <source>&amp;GPU (none here)</source>
        <translation>GPU（此处没有）(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;GPU — %1</source>
        <translation>GPU — %1(&amp;G)</translation>
    </message>
    <message>
        <source>No GPU can compute here: %1</source>
        <translation>此处没有可用于计算的 GPU：%1</translation>
    </message>
    <message>
        <source>Compute every tensor with the Vulkan compute backend on %1; each step can be compared with the CPU in the explanation panel</source>
        <translation>在 %1 上用 Vulkan 计算后端计算每个张量；每个步骤都可以在说明面板中与 CPU 比较</translation>
    </message>
    <message>
        <source>&amp;GPU</source>
        <translation>GPU(&amp;G)</translation>
    </message>
    <message>
        <source>No GPU</source>
        <translation>没有 GPU</translation>
    </message>
    <message>
        <source>Stepformer cannot compute on the GPU: %1

It goes on computing on the CPU.</source>
        <translation>Stepformer 无法在 GPU 上计算：%1

将继续在 CPU 上计算。</translation>
    </message>
    <message>
        <source>Unknown device</source>
        <translation>未知设备</translation>
    </message>
    <message>
        <source>Unknown device &quot;%1&quot;: use cpu, gpu or auto.</source>
        <translation>未知设备“%1”：请使用 cpu、gpu 或 auto。</translation>
    </message>
    <message>
        <source>Computing on the CPU: %1.</source>
        <translation>在 CPU 上计算：%1。</translation>
    </message>
    <message>
        <source>Computing on the CPU: the only Vulkan device, %1, runs on the CPU (Model › Compute On › GPU uses it).</source>
        <translation>在 CPU 上计算：唯一的 Vulkan 设备 %1 运行在 CPU 上（可通过 模型 › 计算设备 › GPU 使用它）。</translation>
    </message>
</context>
<context>
    <name>ExplainHeader</name>
    <message>
        <source>Shape </source>
        <translation>形状 </translation>
    </message>
    <message>
        <source>Explanation of the step</source>
        <translation>本步骤的讲解</translation>
    </message>
</context>
<context>
    <name>ExplainPanel</name>
    <message>
        <source>Select a step to see what it computes.</source>
        <translation>选择一个步骤，查看它计算的内容。</translation>
    </message>
    <message>
        <source>value %1</source>
        <translation>值 %1</translation>
    </message>
    <message>
        <source>%1 of %2 positions masked (0), the others kept (1)</source>
        <translation>%2 个位置中有 %1 个被掩码（0），其余保留（1）</translation>
    </message>
    <message>
        <source>%1 of %2 positions masked</source>
        <translation>%2 个位置中有 %1 个被掩码</translation>
    </message>
    <message>
        <source>%1 of %2 positions −∞ (ignored), the others 0 (additive mask)</source>
        <translation>%2 个位置中有 %1 个为 −∞（被忽略），其余为 0（加性掩码）</translation>
    </message>
    <message>
        <source>%1 values, min %2, max %3, mean %4</source>
        <translation>%1 个值，最小 %2，最大 %3，平均 %4</translation>
    </message>
    <message>
        <source>%1 values; of the %2 finite ones min %3, max %4, mean %5</source>
        <translation>%1 个值；其中 %2 个有限值的最小 %3，最大 %4，平均 %5</translation>
    </message>
    <message>
        <source>%1 values, none finite</source>
        <translation>%1 个值，没有有限值</translation>
    </message>
    <message>
        <source>; %1 × −∞ (masked)</source>
        <translation>；%1 × −∞（已掩码）</translation>
    </message>
    <message>
        <source>; %1 × NaN (a row with every key masked)</source>
        <translation>；%1 × NaN（某行的所有键都被掩码）</translation>
    </message>
    <message>
        <source>**Predicted tokens** (argmax at every position of the decoder input):

</source>
        <translation>**预测的词元**（解码器输入每个位置上的 argmax）：

</translation>
    </message>
    <message>
        <source>| t | input | predicted | p |
|---:|---|---|---:|
</source>
        <translation>| t | 输入 | 预测 | p |
|---:|---|---|---:|
</translation>
    </message>
    <message>
        <source>*No explanation is available for the step kind `%1`.*
</source>
        <translation>*步骤类型 `%1` 暂无说明。*
</translation>
    </message>
    <message>
        <source>**Shape** `%1`</source>
        <translation>**形状** `%1`</translation>
    </message>
    <message>
        <source>then multiplies by a learned scale γ and adds a learned shift β (this model&apos;s config has `&quot;learn_layer_norm&quot;: true`, so they are parameters and are trained)</source>
        <translation>再乘以可学习的缩放 γ 并加上可学习的平移 β（该模型的配置中 `&quot;learn_layer_norm&quot;: true`，所以它们是参数，会被训练）</translation>
    </message>
    <message>
        <source>and has no learned scale: γ = 1 and β = 0, because the tutorial builds a fresh `nn.LayerNorm` inside every `forward`, so they are created anew on each call and never trained</source>
        <translation>且没有可学习的缩放：γ = 1、β = 0，因为教程在每次 `forward` 里都新建一个 `nn.LayerNorm`，它们每次调用都重新创建，从不被训练</translation>
    </message>
    <message>
        <source>This model is **pre-norm** (`norm_first=True`): each sub-layer reads the normalised x and its output is added to x itself, `x = x + sublayer(norm(x))`; nothing normalises the sum until the next sub-layer&apos;s norm (or the stack&apos;s final norm).</source>
        <translation>该模型是**前置归一化**（`norm_first=True`）：每个子层读取归一化后的 x，其输出加回 x 本身，`x = x + sublayer(norm(x))`；这个和直到下一个子层的归一化（或整个堆叠最后的归一化）才被归一化。</translation>
    </message>
    <message>
        <source>This model is **post-norm** (`norm_first=False`, PyTorch&apos;s default): the sub-layer&apos;s output is added to its input and the sum is normalised, `x = norm(x + sublayer(x))`.</source>
        <translation>该模型是**后置归一化**（`norm_first=False`，PyTorch 的默认值）：子层的输出加到它的输入上，再对这个和做归一化，`x = norm(x + sublayer(x))`。</translation>
    </message>
</context>
<context>
    <name>FileDialogs</name>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Open Weights</source>
        <translation>打开权重</translation>
    </message>
    <message>
        <source>Safetensors weights (*.safetensors);;All files (*)</source>
        <translation>Safetensors 权重 (*.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>NumPy array (*.npy)</source>
        <translation>NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Export Tensor</source>
        <translation>导出张量</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG 图像 (*.svg)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Export View</source>
        <translation>导出视图</translation>
    </message>
    <message>
        <source>Export Gradients</source>
        <translation>导出梯度</translation>
    </message>
    <message>
        <source>Export Trace</source>
        <translation>导出前向过程</translation>
    </message>
    <message>
        <source>NumPy archive (*.npz)</source>
        <translation>NumPy 归档 (*.npz)</translation>
    </message>
</context>
<context>
    <name>GradientView</name>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Tensor and its gradient</source>
        <translation>张量及其梯度</translation>
    </message>
    <message>
        <source>The step&apos;s tensor beside its gradient ∂loss/∂tensor</source>
        <translation>此步骤的张量与其梯度 ∂loss/∂tensor 并排显示</translation>
    </message>
    <message>
        <source>Weight W</source>
        <translation>权重 W</translation>
    </message>
    <message>
        <source>The weight that made this step&apos;s tensor</source>
        <translation>生成此步骤张量的权重</translation>
    </message>
    <message>
        <source>Its gradient ∂loss/∂W</source>
        <translation>其梯度 ∂loss/∂W</translation>
    </message>
    <message>
        <source>The weight&apos;s gradient: what the backward pass computes for the optimizer</source>
        <translation>权重的梯度：反向传播为优化器计算的结果</translation>
    </message>
    <message>
        <source>Update ΔW</source>
        <translation>更新量 ΔW</translation>
    </message>
    <message>
        <source>What the optimizer&apos;s next step would add to the weight</source>
        <translation>优化器下一步将加到权重上的量</translation>
    </message>
    <message>
        <source>The gradient has the tensor&apos;s shape: one number per entry, how much the loss changes when that entry changes</source>
        <translation>梯度与张量形状相同：每个元素对应一个数值，表示该元素变化时损失变化多少</translation>
    </message>
    <message>
        <source>forward step %1 of %2; its gradient is backward step %3 of %4</source>
        <translation>前向步骤 %1 / %2；其梯度为反向步骤 %3 / %4</translation>
    </message>
    <message>
        <source>forward step %1 of %2</source>
        <translation>前向步骤 %1 / %2</translation>
    </message>
    <message>
        <source>backward step %1 of %2</source>
        <translation>反向步骤 %1 / %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Backward pass&lt;/b&gt;</source>
        <translation>&lt;b&gt;反向传播&lt;/b&gt;</translation>
    </message>
    <message>
        <source>No data yet — run a training step to see the gradients.</source>
        <translation>暂无数据 — 运行一个训练步以查看梯度。</translation>
    </message>
    <message>
        <source>This trace has no gradients yet.
Run a backward pass (a training step) to see them.</source>
        <translation>此追踪尚无梯度。
运行一次反向传播（一个训练步）即可查看。</translation>
    </message>
    <message>
        <source>Choose a backward step to see a tensor beside its gradient.</source>
        <translation>选择一个反向步骤，将张量与其梯度并排查看。</translation>
    </message>
    <message>
        <source>No gradient for “%1” in this trace.
Run a backward pass (a training step) to see it, or pick a step on the loss&apos;s path (masks and the positional table have none).</source>
        <translation>此追踪中没有“%1”的梯度。
运行一次反向传播（一个训练步）即可查看，或选择位于损失路径上的步骤（掩码和位置编码表没有梯度）。</translation>
    </message>
    <message>
        <source>  (forward value)</source>
        <translation>  （前向值）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not in this trace.</source>
        <translation>&apos;%1&apos; 不在此追踪中。</translation>
    </message>
    <message>
        <source>  · head %1</source>
        <translation>  · 头 %1</translation>
    </message>
    <message>
        <source>∂loss/∂x</source>
        <translation>∂loss/∂x</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;positive: making this number larger would raise the loss&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;正：增大这个数会使损失升高&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;negative: making this number larger would lower the loss&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;负：增大这个数会使损失降低&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;i&gt;zero: this number does not affect the loss here&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;零：这个数在此处不影响损失&lt;/i&gt;</translation>
    </message>
    <message>
        <source>its
gradient
→</source>
        <translation>它的
梯度
→</translation>
    </message>
    <message>
        <source>↓ its gradient: %1</source>
        <translation>↓ 它的梯度：%1</translation>
    </message>
    <message>
        <source>‖∂loss/∂%1‖ = %2 over the whole tensor %3</source>
        <translation>‖∂loss/∂%1‖ = %2（整个张量 %3）</translation>
    </message>
    <message>
        <source>;&amp;nbsp; largest here: &lt;b&gt;%1&lt;/b&gt; at (%2, %3)</source>
        <translation>；&amp;nbsp;此处最大：&lt;b&gt;%1&lt;/b&gt;，位于 (%2, %3)</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;span style=&apos;color:#555&apos;&gt;Red: raising that number would raise the loss; blue: would lower it.&lt;/span&gt;</source>
        <translation>&lt;br&gt;&lt;span style=&apos;color:#555&apos;&gt;红色：增大该数会使损失升高；蓝色：会使损失降低。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Gradient descent moves every number against its gradient: the optimizer subtracts (a multiple of) it from each weight.</source>
        <translation>梯度下降让每个数朝其梯度的反方向移动：优化器从每个权重中减去梯度（的若干倍）。</translation>
    </message>
    <message>
        <source>&lt;br&gt;∂loss/∂%1 here = &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>&lt;br&gt;此处的 ∂loss/∂%1 = &lt;b&gt;%2&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;forward value %1 = &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>&lt;br&gt;前向值 %1 = &lt;b&gt;%2&lt;/b&gt;</translation>
    </message>
</context>
<context>
    <name>HeatmapWidget</name>
    <message>
        <source>row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>&lt;i&gt;Masked&lt;/i&gt; (the mask is 1 here): the score is replaced by &lt;b&gt;−1e9&lt;/b&gt; before the softmax, so this attention weight becomes exactly &lt;b&gt;0&lt;/b&gt;.</source>
        <translation>&lt;i&gt;已掩码&lt;/i&gt;（此处掩码为 1）：在 softmax 之前，分数被替换为 &lt;b&gt;−1e9&lt;/b&gt;，因此该注意力权重恰好变为 &lt;b&gt;0&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>ignored
(= −∞)</source>
        <translation>忽略
(= −∞)</translation>
    </message>
    <message>
        <source>masked
(= −1e9)</source>
        <translation>已掩码
(= −1e9)</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已掩码</translation>
    </message>
    <message>
        <source>−∞ = ignored</source>
        <translation>−∞ = 忽略</translation>
    </message>
    <message>
        <source>1 = masked</source>
        <translation>1 = 已掩码</translation>
    </message>
    <message>
        <source>0 = attend</source>
        <translation>0 = 可关注</translation>
    </message>
    <message>
        <source>0 = visible</source>
        <translation>0 = 可见</translation>
    </message>
    <message>
        <source>No data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>value = &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>值 = &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>%1, %2 = %3</source>
        <translation>%1，%2 = %3</translation>
    </message>
    <message>
        <source> (masked)</source>
        <translation>（已掩码）</translation>
    </message>
    <message>
        <source>Heatmap</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>Heatmap: %1</source>
        <translation>热力图：%1</translation>
    </message>
    <message>
        <source>%1 rows × %2 columns</source>
        <translation>%1 行 × %2 列</translation>
    </message>
    <message>
        <source>rows: %1; columns: %2</source>
        <translation>行：%1；列：%2</translation>
    </message>
    <message>
        <source>Tab here, then the arrow keys move a cell cursor; Esc leaves it.</source>
        <translation>用 Tab 键移到这里后，方向键移动单元格光标；按 Esc 键退出。</translation>
    </message>
    <message>
        <source>%1 × %2 cells selected: Ctrl+C copies them</source>
        <translation>已选中 %1 × %2 个单元格：按 Ctrl+C 复制</translation>
    </message>
</context>
<context>
    <name>HelpDialogs</name>
    <message>
        <source>→ / ←</source>
        <translation>→ / ←</translation>
    </message>
    <message>
        <source>next / previous step</source>
        <translation>下一步 / 上一步</translation>
    </message>
    <message>
        <source>Space</source>
        <translation>Space</translation>
    </message>
    <message>
        <source>play / pause</source>
        <translation>播放 / 暂停</translation>
    </message>
    <message>
        <source>Home / End</source>
        <translation>Home / End</translation>
    </message>
    <message>
        <source>first / last step</source>
        <translation>第一步 / 最后一步</translation>
    </message>
    <message>
        <source>Ctrl+1 … Ctrl+7</source>
        <translation>Ctrl+1 … Ctrl+7</translation>
    </message>
    <message>
        <source>tensor, attention, masks, positional-encoding, decode, loss, gradients view</source>
        <translation>视图：张量、注意力、掩码、位置编码、解码、损失、梯度</translation>
    </message>
    <message>
        <source>Ctrl+B</source>
        <translation>Ctrl+B</translation>
    </message>
    <message>
        <source>step forward / backward (through the gradients)</source>
        <translation>切换前向 / 反向传播（查看梯度）</translation>
    </message>
    <message>
        <source>Ctrl+T</source>
        <translation>Ctrl+T</translation>
    </message>
    <message>
        <source>show the Train panel</source>
        <translation>显示训练面板</translation>
    </message>
    <message>
        <source>Ctrl+S</source>
        <translation>Ctrl+S</translation>
    </message>
    <message>
        <source>save the trained checkpoint</source>
        <translation>保存训练好的检查点</translation>
    </message>
    <message>
        <source>Ctrl+F</source>
        <translation>Ctrl+F</translation>
    </message>
    <message>
        <source>follow step: pick the view that suits each step</source>
        <translation>跟随步骤：为每一步自动选择合适的视图</translation>
    </message>
    <message>
        <source>Ctrl+O</source>
        <translation>Ctrl+O</translation>
    </message>
    <message>
        <source>open weights</source>
        <translation>打开权重</translation>
    </message>
    <message>
        <source>Ctrl+Shift+S</source>
        <translation>Ctrl+Shift+S</translation>
    </message>
    <message>
        <source>export the view as PNG</source>
        <translation>将视图导出为 PNG</translation>
    </message>
    <message>
        <source>Ctrl+Shift+C</source>
        <translation>Ctrl+Shift+C</translation>
    </message>
    <message>
        <source>export the tensor as CSV</source>
        <translation>将张量导出为 CSV</translation>
    </message>
    <message>
        <source>in a sentence field: list the vocabulary</source>
        <translation>在句子输入框中：列出词表</translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <translation>Ctrl+Q</translation>
    </message>
    <message>
        <source>quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>About Stepformer</source>
        <translation>关于 Stepformer</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Stepformer %1&lt;/h3&gt;&lt;p&gt;Step through the forward pass of the classic PyTorch encoder-decoder Transformer tutorial and see every intermediate tensor: embeddings, positional encoding, masks, Q/K/V, attention scores and weights, Add &amp;amp; Norm, the feed-forward network and the output probabilities.&lt;/p&gt;&lt;p&gt;The default model is trained on the tutorial&apos;s two sentences on first start and cached in &lt;tt&gt;%2&lt;/tt&gt;.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Stepformer %1&lt;/h3&gt;&lt;p&gt;逐步执行经典 PyTorch 编码器-解码器 Transformer 教程的前向传播，查看每一个中间张量：词嵌入、位置编码、掩码、Q/K/V、注意力分数与权重、Add &amp;amp; Norm、前馈网络以及输出概率。&lt;/p&gt;&lt;p&gt;默认模型在首次启动时用教程中的两个句子训练，并缓存在 &lt;tt&gt;%2&lt;/tt&gt; 中。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Alt+/ or Ctrl+Space</source>
        <translation>Alt+/ 或 Ctrl+Space</translation>
    </message>
    <message>
        <source>find a step by name or words (&quot;softmax decoder 3&quot;)</source>
        <translation>按名称或关键词查找步骤（&quot;softmax decoder 3&quot;）</translation>
    </message>
    <message>
        <source>Ctrl+Shift+F</source>
        <translation>Ctrl+Shift+F</translation>
    </message>
    <message>
        <source>Ctrl+C</source>
        <translation>Ctrl+C</translation>
    </message>
    <message>
        <source>copy the heatmap cell under the mouse</source>
        <translation>复制鼠标下的热力图单元格</translation>
    </message>
    <message>
        <source>F11</source>
        <translation>F11</translation>
    </message>
    <message>
        <source>full screen</source>
        <translation>全屏</translation>
    </message>
    <message>
        <source>Ctrl+Shift+T</source>
        <translation>Ctrl+Shift+T</translation>
    </message>
    <message>
        <source>training layout: the Train panel in most of the window, and back</source>
        <translation>训练布局：训练面板占据窗口大部分，再按复原</translation>
    </message>
    <message>
        <source>Ctrl++ / Ctrl+− / Ctrl+0</source>
        <translation>Ctrl++ / Ctrl+− / Ctrl+0</translation>
    </message>
    <message>
        <source>presentation zoom: larger text and cells, smaller, actual size</source>
        <translation>演示缩放：放大文字和单元格、缩小、实际大小</translation>
    </message>
</context>
<context>
    <name>HyperparameterForm</name>
    <message>
        <source>Preset:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <source>The tutorial&apos;s (d_model 512, 6 layers, SGD)</source>
        <translation>教程的设置（d_model 512，6 层，SGD）</translation>
    </message>
    <message>
        <source>Small and readable (d_model 32, 2 layers, Adam)</source>
        <translation>小巧易读（d_model 32，2 层，Adam）</translation>
    </message>
    <message>
        <source>PyTorch&apos;s nn.Transformer (d_model 32, 2 + 2 layers, Adam)</source>
        <translation>PyTorch 的 nn.Transformer（d_model 32，2 + 2 层，Adam）</translation>
    </message>
    <message>
        <source>attention-is-all-you-need-pytorch (d_model 32, 2 layers, Adam)</source>
        <translation>attention-is-all-you-need-pytorch（d_model 32，2 层，Adam）</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>The tutorial&apos;s hyperparameters train slowly (about 0.1 s a step); the small model trains in a second and its attention maps are easy to read.</source>
        <translation>教程的超参数训练较慢（每步约 0.1 秒）；小模型一秒即可训练完成，且注意力图易于阅读。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>d_model: the width of every token&apos;s vector (the tutorial: 512).</source>
        <translation>d_model：每个词元向量的宽度（教程中为 512）。</translation>
    </message>
    <message>
        <source>d_ff: the hidden width of the feed-forward network (the tutorial: 2048).</source>
        <translation>d_ff：前馈网络隐藏层的宽度（教程中为 2048）。</translation>
    </message>
    <message>
        <source>d_k: the width of each head&apos;s queries and keys (the tutorial: 64).</source>
        <translation>d_k：每个头的查询和键的宽度（教程中为 64）。</translation>
    </message>
    <message>
        <source>d_v: the width of each head&apos;s values (the tutorial: 64).</source>
        <translation>d_v：每个头的值的宽度（教程中为 64）。</translation>
    </message>
    <message>
        <source>n_heads: attention heads per block (the tutorial: 8).</source>
        <translation>n_heads：每个模块的注意力头数（教程中为 8）。</translation>
    </message>
    <message>
        <source>n_layers: encoder and decoder layers each (the tutorial: 6).</source>
        <translation>n_layers：编码器层数和解码器层数（各自，教程中为 6）。</translation>
    </message>
    <message>
        <source>Dropout after the positional encoding, active while training only (the tutorial: 0.1). Must be below 1.</source>
        <translation>位置编码之后的 dropout，仅在训练时生效（教程中为 0.1）。必须小于 1。</translation>
    </message>
    <message>
        <source>The tutorial&apos;s (seed 001)</source>
        <translation>教程的模型（种子文档 001）</translation>
    </message>
    <message>
        <source>PyTorch&apos;s nn.Transformer (seed 002)</source>
        <translation>PyTorch 的 nn.Transformer（种子文档 002）</translation>
    </message>
    <message>
        <source>attention-is-all-you-need-pytorch (seed 003)</source>
        <translation>attention-is-all-you-need-pytorch（种子文档 003）</translation>
    </message>
    <message>
        <source>The tutorial&apos;s model, or PyTorch&apos;s own nn.Transformer layers: packed in-projection with biases, learned LayerNorm, final encoder and decoder norms, masks of 0 / −inf.</source>
        <translation>教程的模型，或 PyTorch 自带的 nn.Transformer 层：带偏置的打包输入投影、可学习的 LayerNorm、编码器和解码器末尾的归一化、取值为 0 / −inf 的掩码。</translation>
    </message>
    <message>
        <source>pre-norm (norm_first)</source>
        <translation>前置归一化 (norm_first)</translation>
    </message>
    <message>
        <source>nn.TransformerEncoderLayer(norm_first=True): LayerNorm before each sub-layer, the residual around it (off: after the residual sum, as the paper).</source>
        <translation>nn.TransformerEncoderLayer(norm_first=True)：在每个子层之前做 LayerNorm，残差连接绕过该子层（关闭时：在残差求和之后做，与论文一致）。</translation>
    </message>
    <message>
        <source>The feed-forward network&apos;s activation (nn.Transformer&apos;s activation argument).</source>
        <translation>前馈网络的激活函数（即 nn.Transformer 的 activation 参数）。</translation>
    </message>
    <message>
        <source>architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>d_ff</source>
        <translation>d_ff</translation>
    </message>
    <message>
        <source>d_v</source>
        <translation>d_v</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>learn LayerNorm γ, β</source>
        <translation>学习 LayerNorm 的 γ、β</translation>
    </message>
    <message>
        <source>Off (the tutorial): LayerNorm has no learned scale, γ = 1 and β = 0, because the tutorial builds a fresh nn.LayerNorm in every forward, so they are never trained.
On: γ and β are parameters, trained and saved (config key learn_layer_norm).</source>
        <translation>关闭（教程的做法）：LayerNorm 没有可学习的缩放，γ = 1、β = 0，因为教程在每次前向传播时都新建一个 nn.LayerNorm，所以它们从未被训练。
开启：γ 和 β 作为参数参与训练并被保存（配置键 learn_layer_norm）。</translation>
    </message>
    <message>
        <source>dropout</source>
        <translation>dropout</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>SGD with momentum (the tutorial&apos;s)</source>
        <translation>带动量的 SGD（教程的做法）</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>Learning rate, e.g. 1e-3 or 0.001. Between 0 (exclusive) and 100.</source>
        <translation>学习率，例如 1e-3 或 0.001。取值范围为 0（不含）到 100。</translation>
    </message>
    <message>
        <source>SGD momentum (the tutorial: 0.99). Must be below 1.</source>
        <translation>SGD 动量（教程中为 0.99）。必须小于 1。</translation>
    </message>
    <message>
        <source>warm-up schedule</source>
        <translation>预热调度</translation>
    </message>
    <message>
        <source>The paper&apos;s schedule: lr × d_model^−0.5 × min(step^−0.5, step × warmup^−1.5). With it, the learning rate field is a multiplier (the paper: 1).</source>
        <translation>论文中的调度：lr × d_model^−0.5 × min(step^−0.5, step × warmup^−1.5)。启用后，学习率字段作为倍数使用（论文中为 1）。</translation>
    </message>
    <message>
        <source>Warm-up steps (the paper: 4000).</source>
        <translation>预热步数（论文中为 4000）。</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>momentum</source>
        <translation>动量</translation>
    </message>
    <message>
        <source>Training loop</source>
        <translation>训练循环</translation>
    </message>
    <message>
        <source>Passes over the dataset (the tutorial: 30).</source>
        <translation>遍历数据集的轮数（教程中为 30）。</translation>
    </message>
    <message>
        <source>Sentences per optimizer step (the tutorial: 2).</source>
        <translation>每个优化器步使用的句子数（教程中为 2）。</translation>
    </message>
    <message>
        <source>Seeds the initial weights, the shuffling and dropout: the same seed gives the same run.</source>
        <translation>为初始权重、打乱顺序和 dropout 设定随机种子：相同的种子得到相同的运行结果。</translation>
    </message>
    <message>
        <source>shuffle every epoch</source>
        <translation>每轮打乱顺序</translation>
    </message>
    <message>
        <source>The tutorial&apos;s DataLoader shuffles (shuffle=True).</source>
        <translation>教程的 DataLoader 会打乱顺序 (shuffle=True)。</translation>
    </message>
    <message>
        <source>batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>≈ %1 parameters (%2 of weights)</source>
        <translation>≈ %1 个参数（权重占 %2）</translation>
    </message>
    <message>
        <source>Learning rate: enter a number, e.g. 1e-3.</source>
        <translation>学习率：请输入一个数，例如 1e-3。</translation>
    </message>
    <message>
        <source>Learning rate: &quot;%1&quot; is not a number (write e.g. 1e-3 or 0.001).</source>
        <translation>学习率：“%1”不是数字（请写成 1e-3 或 0.001 这样的形式）。</translation>
    </message>
    <message>
        <source>Learning rate: must be greater than 0, got %1.</source>
        <translation>学习率：必须大于 0，当前为 %1。</translation>
    </message>
    <message>
        <source>Learning rate: at most 100, got %1.</source>
        <translation>学习率：最大为 100，当前为 %1。</translation>
    </message>
    <message>
        <source>Momentum: must be below 1 (at 1 the velocity never decays), got %1.</source>
        <translation>动量：必须小于 1（为 1 时速度永不衰减），当前为 %1。</translation>
    </message>
    <message>
        <source>Dropout: must be below 1 (at 1 every activation is dropped), got %1.</source>
        <translation>Dropout：必须小于 1（为 1 时所有激活值都会被丢弃），当前为 %1。</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>Training: %1</source>
        <translation>训练：%1</translation>
    </message>
    <message>
        <source>Model size: %1 parameters would need about %2 of memory to train; make d_model, d_ff or the number of layers smaller.</source>
        <translation>模型规模：%1 个参数，训练约需 %2 内存；请减小 d_model、d_ff 或层数。</translation>
    </message>
    <message>
        <source>nanoGPT (n_embd 32, 2 layers, AdamW)</source>
        <translation>nanoGPT（n_embd 32，2 层，AdamW）</translation>
    </message>
    <message>
        <source>nanoGPT (decoder only)</source>
        <translation>nanoGPT（仅解码器）</translation>
    </message>
    <message>
        <source>Karpathy&apos;s nanoGPT: no encoder; it learns each next word of the target sentences</source>
        <translation>Karpathy 的 nanoGPT：没有编码器；它学习目标句子中的每一个下一个词</translation>
    </message>
    <message>
        <source>AdamW (nanoGPT&apos;s)</source>
        <translation>AdamW（nanoGPT 的）</translation>
    </message>
    <message>
        <source>torch.optim.AdamW as nanoGPT sets it up: β 0.9/0.95, ε 1e-8, weight decay 0.1 on the matrices and embeddings, none on biases and LayerNorm weights</source>
        <translation>按 nanoGPT 的设置使用 torch.optim.AdamW：β 0.9/0.95，ε 1e-8，对矩阵和嵌入施加 0.1 的权重衰减，偏置和 LayerNorm 权重不衰减</translation>
    </message>
    <message>
        <source>Learning rate %1: the preset&apos;s for this optimizer.</source>
        <translation>学习率 %1：该预设为此优化器设定的值。</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>激活函数</translation>
    </message>
</context>
<context>
    <name>InputBar</name>
    <message>
        <source>Source sentence, e.g. ich mochte ein bier P</source>
        <translation>源句子，例如 ich mochte ein bier P</translation>
    </message>
    <message>
        <source>Target sentence, e.g. S i want a beer .</source>
        <translation>目标句子，例如 S i want a beer .</translation>
    </message>
    <message>
        <source>&amp;Source:</source>
        <translation>源句子(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Target:</source>
        <translation>目标句子(&amp;T)：</translation>
    </message>
    <message>
        <source>Example</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Back to the tutorial&apos;s example: ich mochte ein bier P → S i want a beer .</source>
        <translation>恢复为教程的示例：ich mochte ein bier P → S i want a beer .</translation>
    </message>
    <message>
        <source>The encoder&apos;s input (enc_inputs), at most %1 words from: %2</source>
        <translation>编码器的输入 (enc_inputs)，最多 %1 个单词，可选词：%2</translation>
    </message>
    <message>
        <source>The decoder&apos;s input (dec_inputs), at most %1 words from: %2</source>
        <translation>解码器的输入 (dec_inputs)，最多 %1 个单词，可选词：%2</translation>
    </message>
    <message>
        <source>the source sentence is empty</source>
        <translation>源句子为空</translation>
    </message>
    <message>
        <source>the target sentence is empty</source>
        <translation>目标句子为空</translation>
    </message>
    <message>
        <source> &lt;i&gt;(showing the last valid sentences)&lt;/i&gt;</source>
        <translation> &lt;i&gt;（显示的是最近一次有效的句子）&lt;/i&gt;</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>The encoder&apos;s input (enc_inputs): source words separated by spaces. Alt+/ (or Ctrl+Space) lists the vocabulary.</source>
        <translation>编码器的输入 (enc_inputs)：以空格分隔的源语言单词。按 Alt+/（或 Ctrl+Space） 列出词表。</translation>
    </message>
    <message>
        <source>The decoder&apos;s input (dec_inputs): starts with the start symbol S. Alt+/ (or Ctrl+Space) lists the vocabulary.</source>
        <translation>解码器的输入 (dec_inputs)：以起始符号 S 开头。按 Alt+/（或 Ctrl+Space） 列出词表。</translation>
    </message>
    <message numerus="yes">
        <source>unknown source words %1 (the source vocabulary is: %2)</source>
        <translation>
            <numerusform>未知的源语言单词：%1（源词表为：%2）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>unknown target words %1 (the target vocabulary is: %2)</source>
        <translation>
            <numerusform>未知的目标语言单词：%1（目标词表为：%2）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the source has %n words, at most %1 fit (src_len)</source>
        <translation>
            <numerusform>源句子有 %n 个单词，最多只能容纳 %1 个 (src_len)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the target has %n words, at most %1 fit (tgt_len)</source>
        <translation>
            <numerusform>目标句子有 %n 个单词，最多只能容纳 %1 个 (tgt_len)</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Text:</source>
        <translation>文本(&amp;T)：</translation>
    </message>
    <message>
        <source>The model&apos;s input (idx): at most %1 words (block_size) from: %2. It predicts each next word; the Decode view continues the first two.</source>
        <translation>模型的输入 (idx)：最多 %1 个单词 (block_size)，可选词：%2。模型预测每个位置的下一个词；解码视图从前两个词开始续写。</translation>
    </message>
    <message>
        <source>Text, e.g. S i want a beer .</source>
        <translation>文本，例如 S i want a beer .</translation>
    </message>
    <message numerus="yes">
        <source>unknown words %1 (the vocabulary is: %2)</source>
        <translation>
            <numerusform>未知的单词：%1（词表为：%2）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the text has %n words, at most %1 fit (block_size)</source>
        <translation>
            <numerusform>文本有 %n 个单词，最多只能容纳 %1 个 (block_size)</numerusform>
        </translation>
    </message>
    <message>
        <source>the text is empty</source>
        <translation>文本为空</translation>
    </message>
    <message>
        <source>Back to the example text: S i want a beer .</source>
        <translation>恢复为示例文本：S i want a beer .</translation>
    </message>
</context>
<context>
    <name>InputTable</name>
    <message>
        <source>pad</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>key_padding_mask[b, l]: checked = True = this position is ignored as a key</source>
        <translation>key_padding_mask[b, l]：勾选 = True = 该位置作为键时被忽略</translation>
    </message>
    <message>
        <source>x[%1, %2, %3] = %4; type a number</source>
        <translation>x[%1, %2, %3] = %4；可输入一个数</translation>
    </message>
    <message>
        <source>key_padding_mask[%1, %2] = %3</source>
        <translation>key_padding_mask[%1, %2] = %3</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a number: x[%2, %3, %4] keeps its value</source>
        <translation>“%1”不是数字：x[%2, %3, %4] 保持原值</translation>
    </message>
</context>
<context>
    <name>LabControls</name>
    <message>
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <source>src [seq_len, batch, d_model]</source>
        <translation>src [seq_len, batch, d_model]</translation>
    </message>
    <message>
        <source>The encoder layer&apos;s input, in PyTorch&apos;s layout (batch_first=False)</source>
        <translation>编码器层的输入，采用 PyTorch 的布局 (batch_first=False)</translation>
    </message>
    <message>
        <source>seq_len </source>
        <translation>seq_len </translation>
    </message>
    <message>
        <source>batch </source>
        <translation>批 </translation>
    </message>
    <message>
        <source>Seed 004&apos;s x</source>
        <translation>种子文档 004 的 x</translation>
    </message>
    <message>
        <source>torch.manual_seed(42); x = torch.randn(3, 1, 4): the notebook&apos;s encoder_input (and, with the decoder layer, a tgt [5, 1, 4] drawn next from the same stream)</source>
        <translation>torch.manual_seed(42); x = torch.randn(3, 1, 4)：即笔记本中的 encoder_input（启用解码器层时，还有紧接着从同一随机流中抽取的 tgt [5, 1, 4]）</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Standard-normal numbers (like torch.randn, from Stepformer&apos;s own generator) with the seed beside it; src and, with the decoder layer, tgt</source>
        <translation>标准正态分布的随机数（类似 torch.randn，但来自 Stepformer 自己的随机数生成器），使用旁边的种子；生成 src，启用解码器层时也生成 tgt</translation>
    </message>
    <message>
        <source>The seed Random uses</source>
        <translation>“随机”按钮使用的种子</translation>
    </message>
    <message>
        <source>Load .npy…</source>
        <translation>加载 .npy…</translation>
    </message>
    <message>
        <source>A NumPy array [seq_len, batch, d_model] (or [seq_len, d_model]), e.g. np.save(&apos;x.npy&apos;, x.numpy())</source>
        <translation>NumPy 数组 [seq_len, batch, d_model]（或 [seq_len, d_model]），例如 np.save(&apos;x.npy&apos;, x.numpy())</translation>
    </message>
    <message>
        <source>Decoder layer (nn.TransformerDecoderLayer)</source>
        <translation>解码器层 (nn.TransformerDecoderLayer)</translation>
    </message>
    <message>
        <source>output = decoder_layer(tgt, memory): a decoder layer of the same size after the encoder layer, reading its output as memory (seed 004&apos;s second part, with trg_seq_len 5)</source>
        <translation>output = decoder_layer(tgt, memory)：在编码器层之后接一个同样大小的解码器层，把编码器层的输出作为 memory 读入（种子文档 004 的第二部分，trg_seq_len 为 5）</translation>
    </message>
    <message>
        <source>tgt [tgt_len, batch, d_model]</source>
        <translation>tgt [tgt_len, batch, d_model]</translation>
    </message>
    <message>
        <source>tgt_len </source>
        <translation>tgt_len </translation>
    </message>
    <message>
        <source>Standard-normal tgt with the seed of src&apos;s Random</source>
        <translation>标准正态分布的 tgt，使用 src “随机”按钮的种子</translation>
    </message>
    <message>
        <source>A NumPy array [tgt_len, batch, d_model]</source>
        <translation>NumPy 数组 [tgt_len, batch, d_model]</translation>
    </message>
    <message>
        <source>causal tgt_mask (-inf above the diagonal)</source>
        <translation>因果 tgt_mask（对角线以上为 -inf）</translation>
    </message>
    <message>
        <source>tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_len): position i may not look at the positions after it</source>
        <translation>tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_len)：位置 i 不能关注它之后的位置</translation>
    </message>
    <message>
        <source>src&apos;s pad column is also the decoder&apos;s memory_key_padding_mask.</source>
        <translation>src 的“填充”列同时也是解码器的 memory_key_padding_mask。</translation>
    </message>
    <message>
        <source>Load tgt</source>
        <translation>加载 tgt</translation>
    </message>
    <message>
        <source>Load src</source>
        <translation>加载 src</translation>
    </message>
    <message>
        <source>NumPy arrays (*.npy);;All files (*)</source>
        <translation>NumPy 数组 (*.npy);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Layer options</source>
        <translation>层选项</translation>
    </message>
    <message>
        <source>norm_first (pre-norm)</source>
        <translation>norm_first（前置归一化）</translation>
    </message>
    <message>
        <source>norm_first=True: LayerNorm before each sub-layer, x + sub-layer(norm(x)); the layer ends on the residual, without a norm after it</source>
        <translation>norm_first=True：在每个子层之前做 LayerNorm，x + sub-layer(norm(x))；该层以残差结束，之后不再做归一化</translation>
    </message>
    <message>
        <source>Gradients of loss = output[..., 0].sum()</source>
        <translation>loss = output[..., 0].sum() 的梯度</translation>
    </message>
    <message>
        <source>Adds a grad.&lt;step&gt; for every step, in the order backpropagation computes them. (Not output.sum(): a LayerNorm&apos;s outputs always sum to the sum of its bias, so its gradient would be 0.)</source>
        <translation>为每一步添加一个 grad.&lt;step&gt;，顺序与反向传播计算它们的顺序一致。（不用 output.sum()：LayerNorm 的输出之和总是等于其偏置之和，因此它的梯度会是 0。）</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>PyTorch&apos;s initialisation does not depend on norm_first or activation: torch.manual_seed(42) gives these same weights for every choice. The notebook&apos;s printed numbers are the defaults&apos; (post-norm, relu).</source>
        <translation>PyTorch 的初始化不依赖于 norm_first 或 activation：无论如何选择，torch.manual_seed(42) 都会给出相同的权重。笔记本中打印的数值对应默认设置（post-norm，relu）。</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Seed 004&apos;s</source>
        <translation>种子文档 004</translation>
    </message>
    <message>
        <source>PyTorch&apos;s own initialisation of nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0) after torch.manual_seed(42) and x = torch.randn(3, 1, 4)</source>
        <translation>在 torch.manual_seed(42) 和 x = torch.randn(3, 1, 4) 之后，PyTorch 自己对 nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0) 的初始化</translation>
    </message>
    <message>
        <source>Fresh</source>
        <translation>全新初始化</translation>
    </message>
    <message>
        <source>init_params with the seed beside it: PyTorch&apos;s schemes, Stepformer&apos;s random generator</source>
        <translation>使用旁边的种子执行 init_params：采用 PyTorch 的初始化方案，随机数来自 Stepformer 的生成器</translation>
    </message>
    <message>
        <source>The seed Fresh uses</source>
        <translation>“新建”使用的种子</translation>
    </message>
    <message>
        <source>Open state_dict…</source>
        <translation>打开 state_dict…</translation>
    </message>
    <message>
        <source>A safetensors file with encoder_layer.* (and decoder_layer.*) names, e.g. save_file({&apos;encoder_layer.&apos; + k: v for k, v in layer.state_dict().items()}, &apos;w.safetensors&apos;)</source>
        <translation>名称为 encoder_layer.*（以及 decoder_layer.*）的 safetensors 文件，例如 save_file({&apos;encoder_layer.&apos; + k: v for k, v in layer.state_dict().items()}, &apos;w.safetensors&apos;)</translation>
    </message>
    <message>
        <source>Open state_dict</source>
        <translation>打开 state_dict</translation>
    </message>
    <message>
        <source>safetensors (*.safetensors);;All files (*)</source>
        <translation>safetensors (*.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Could not load %1: %2. The inputs are unchanged.</source>
        <translation>无法加载 %1：%2。输入保持不变。</translation>
    </message>
    <message>
        <source>Could not open the weights: %1. The weights are unchanged.</source>
        <translation>无法打开权重：%1。权重保持不变。</translation>
    </message>
    <message>
        <source>Numbers: %1. Row [l, b] = position l of batch element b; double-click a number to type another.</source>
        <translation>数值：%1。行 [l, b] = 批中第 b 个元素的位置 l；双击数值可输入新值。</translation>
    </message>
    <message>
        <source>Numbers: %1.</source>
        <translation>数值：%1。</translation>
    </message>
    <message>
        <source>d_model %1, nhead %2, dim_feedforward %3. %4</source>
        <translation>d_model %1，nhead %2，dim_feedforward %3。%4</translation>
    </message>
    <message>
        <source>&lt;b&gt;Seed 004&apos;s setup&lt;/b&gt;: the encoder layer&apos;s output is the notebook&apos;s printed memory.</source>
        <translation>&lt;b&gt;种子文档 004 的设置&lt;/b&gt;：编码器层的输出就是笔记本中打印的 memory。</translation>
    </message>
    <message>
        <source>Not seed 004&apos;s setup (its x, its weights, post-norm relu, no padding): the numbers differ from the notebook&apos;s print.</source>
        <translation>不是种子文档 004 的设置（它的 x、它的权重、post-norm relu、无填充）：数值与笔记本中打印的不同。</translation>
    </message>
</context>
<context>
    <name>LabModel</name>
    <message>
        <source>seed 004&apos;s x</source>
        <translation>种子文档 004 的 x</translation>
    </message>
    <message>
        <source>seed 004&apos;s tgt (continued)</source>
        <translation>种子文档 004 的 tgt（接续）</translation>
    </message>
    <message>
        <source>Seed 004&apos;s: PyTorch&apos;s own initialisation after torch.manual_seed(42) and x = torch.randn(3, 1, 4) (in_proj xavier, in_proj and out_proj biases 0, norms 1 and 0). The decoder layer&apos;s weights continue the same random stream: PyTorch&apos;s initialisation too, but not the notebook&apos;s decoder cells</source>
        <translation>种子文档 004 的权重：在 torch.manual_seed(42) 和 x = torch.randn(3, 1, 4) 之后 PyTorch 自己的初始化（in_proj 用 xavier，in_proj 和 out_proj 的偏置为 0，归一化层为 1 和 0）。解码器层的权重接续同一随机流：同样是 PyTorch 的初始化，但不是笔记本中解码器单元格的权重</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>resized</source>
        <translation>已调整大小</translation>
    </message>
    <message>
        <source>Seed 004&apos;s x has d_model 4; these weights have d_model %1.</source>
        <translation>种子文档 004 的 x 的 d_model 为 4；这些权重的 d_model 为 %1。</translation>
    </message>
    <message>
        <source>random, seed %1</source>
        <translation>随机，种子 %1</translation>
    </message>
    <message>
        <source>%1 has shape %2: %3</source>
        <translation>%1 的形状为 %2：%3</translation>
    </message>
    <message>
        <source>the layer takes [seq_len, batch, d_model] (or [seq_len, d_model])</source>
        <translation>该层接受 [seq_len, batch, d_model]（或 [seq_len, d_model]）</translation>
    </message>
    <message>
        <source>the last dimension must be d_model = %1</source>
        <translation>最后一维必须是 d_model = %1</translation>
    </message>
    <message>
        <source>the lab takes sequence lengths 1 to %1</source>
        <translation>实验室支持的序列长度为 1 到 %1</translation>
    </message>
    <message>
        <source>the lab takes batch sizes 1 to %1</source>
        <translation>实验室支持的批大小为 1 到 %1</translation>
    </message>
    <message>
        <source>it contains NaN or infinity</source>
        <translation>其中包含 NaN 或无穷大</translation>
    </message>
    <message>
        <source>Fresh: init_params(seed %1), PyTorch&apos;s initialisation schemes (in_proj xavier, linear layers U(±1/√fan_in), biases of the attention 0, norms 1 and 0) from Stepformer&apos;s own random generator, so not the numbers torch.manual_seed(%1) would give</source>
        <translation>全新初始化：init_params(seed %1)，采用 PyTorch 的初始化方案（in_proj 用 xavier，线性层用 U(±1/√fan_in)，注意力的偏置为 0，归一化层为 1 和 0），随机数来自 Stepformer 自己的生成器，因此与 torch.manual_seed(%1) 得到的数值不同</translation>
    </message>
    <message>
        <source>From %1%2</source>
        <translation>来自 %1%2</translation>
    </message>
    <message>
        <source> (with its config)</source>
        <translation>（含其配置）</translation>
    </message>
    <message>
        <source> (nhead %1 assumed)</source>
        <translation>（假定 nhead 为 %1）</translation>
    </message>
    <message>
        <source>; it has no decoder_layer.*: the decoder layer&apos;s are fresh, init_params(seed %1)</source>
        <translation>；其中没有 decoder_layer.*：解码器层的权重为全新初始化，init_params(seed %1)</translation>
    </message>
    <message>
        <source>random, seed 0</source>
        <translation>随机，种子 0</translation>
    </message>
    <message>
        <source>random, seed 1</source>
        <translation>随机，种子 1</translation>
    </message>
    <message>
        <source>no encoder_layer.self_attn.in_proj_weight / encoder_layer.linear1.weight: the lab opens the state_dicts of nn.TransformerEncoderLayer (and nn.TransformerDecoderLayer) saved under the names encoder_layer.* (and decoder_layer.*)</source>
        <translation>没有 encoder_layer.self_attn.in_proj_weight / encoder_layer.linear1.weight：实验室打开的是以 encoder_layer.*（以及 decoder_layer.*）为名保存的 nn.TransformerEncoderLayer（以及 nn.TransformerDecoderLayer）的 state_dict</translation>
    </message>
    <message>
        <source>d_model %1 is not divisible by nhead %2; a state_dict does not say nhead: save the file with a stepformer config in its metadata</source>
        <translation>d_model %1 不能被 nhead %2 整除；state_dict 中没有 nhead：请在保存文件时把 stepformer 配置写入其元数据</translation>
    </message>
</context>
<context>
    <name>LayerLabWindow</name>
    <message>
        <source>Layer Lab: nn.TransformerEncoderLayer, step by step (seed 004)</source>
        <translation>层实验室：逐步运行 nn.TransformerEncoderLayer（种子文档 004）</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Seed 004</source>
        <translation>种子文档 004</translation>
    </message>
    <message>
        <source>Every number is computed by Stepformer&apos;s own nn.TransformerEncoderLayer, tested against PyTorch 1.13 to 1e-4</source>
        <translation>每个数值都由 Stepformer 自己的 nn.TransformerEncoderLayer 计算，并已与 PyTorch 1.13 对照测试，误差在 1e-4 以内</translation>
    </message>
    <message>
        <source>The layer could not run: %1</source>
        <translation>该层无法运行：%1</translation>
    </message>
</context>
<context>
    <name>LearningRateAdvice</name>
    <message>
        <source>Learning rate %1: SGD&apos;s for this model.</source>
        <translation>学习率 %1：此模型使用 SGD 时的值。</translation>
    </message>
    <message>
        <source>With the warm-up schedule the learning rate is a multiplier: 1, as in the paper.</source>
        <translation>使用预热调度时，学习率是一个倍数：与论文相同，取 1。</translation>
    </message>
    <message>
        <source>Learning rate %1: Adam&apos;s usual for a model %2 wide (SGD&apos;s rate makes Adam overshoot and learn nothing).</source>
        <translation>学习率 %1：宽度为 %2 的模型使用 Adam 时的常用值（沿用 SGD 的学习率会让 Adam 步子过大，什么也学不到）。</translation>
    </message>
    <message>
        <source>Adam&apos;s learning rate %1 is high for a model %2 wide: try %3.</source>
        <translation>对宽度为 %2 的模型来说，Adam 的学习率 %1 偏高：试试 %3。</translation>
    </message>
    <message>
        <source>Try more epochs, or another learning rate.</source>
        <translation>试试更多轮次，或换一个学习率。</translation>
    </message>
    <message>
        <source>The loss barely fell (%1 → %2): the model has not learned the data. %3</source>
        <translation>损失几乎没有下降（%1 → %2）：模型没有学会这些数据。%3</translation>
    </message>
</context>
<context>
    <name>LossChart</name>
    <message>
        <source>smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>Weight of the past in the smoothed line (exponential moving average): 0 = the raw loss.</source>
        <translation>平滑曲线中历史值的权重（指数移动平均）：0 = 原始损失。</translation>
    </message>
    <message>
        <source>log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>A logarithmic loss axis: late, small improvements stay visible.</source>
        <translation>对损失轴使用对数刻度：后期的微小改进依然清晰可见。</translation>
    </message>
    <message>
        <source>loss per step</source>
        <translation>每步损失</translation>
    </message>
    <message>
        <source>smoothed</source>
        <translation>平滑后</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>gradient norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>‖grad‖</source>
        <translation>‖grad‖</translation>
    </message>
    <message>
        <source>loss (log)</source>
        <translation>损失（对数）</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#777&apos;&gt;The loss appears here, one point per optimizer step.&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#777&apos;&gt;损失会显示在这里，每个优化器步一个点。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>step &lt;b&gt;%1&lt;/b&gt; · loss &lt;b style=&apos;color:%4&apos;&gt;%2&lt;/b&gt; · smoothed &lt;b style=&apos;color:%5&apos;&gt;%3&lt;/b&gt;</source>
        <translation>第 &lt;b&gt;%1&lt;/b&gt; 步 · 损失 &lt;b style=&apos;color:%4&apos;&gt;%2&lt;/b&gt; · 平滑后 &lt;b style=&apos;color:%5&apos;&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>step %1
loss %2
smoothed %3
gradient norm %4
learning rate %5</source>
        <translation>第 %1 步
损失 %2
平滑后 %3
梯度范数 %4
学习率 %5</translation>
    </message>
    <message>
        <source>Cannot save %1: the loss curve has no points yet.</source>
        <translation>无法保存 %1：损失曲线还没有数据点。</translation>
    </message>
    <message>
        <source>Cannot save %1: %2</source>
        <translation>无法保存 %1：%2</translation>
    </message>
    <message>
        <source>Save the Loss Curve as CSV…</source>
        <translation>将损失曲线保存为 CSV…</translation>
    </message>
    <message>
        <source>Save the Loss Curve as PNG…</source>
        <translation>将损失曲线保存为 PNG…</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>Save the loss curve</source>
        <translation>保存损失曲线</translation>
    </message>
</context>
<context>
    <name>LossSparkline</name>
    <message>
        <source>Training loss per step</source>
        <translation>每步的训练损失</translation>
    </message>
</context>
<context>
    <name>LossView</name>
    <message>
        <source>Which sentence of the batch to show position by position (the loss averages over all of them)</source>
        <translation>逐位置显示批中的哪个句子（损失是对所有句子求平均）</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>softmax
→</source>
        <translation>softmax
→</translation>
    </message>
    <message>
        <source>p[t, v] = exp(z[t, v]) / Σᵤ exp(z[t, u]) along the vocabulary</source>
        <translation>p[t, v] = exp(z[t, v]) / Σᵤ exp(z[t, u])，沿词表方向计算</translation>
    </message>
    <message>
        <source>The distribution a label-smoothed loss compares p with, row by row</source>
        <translation>标签平滑损失逐行与 p 比较的目标分布</translation>
    </message>
    <message>
        <source>t</source>
        <translation>t</translation>
    </message>
    <message>
        <source>decoder input</source>
        <translation>解码器输入</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>logit zₜ</source>
        <translation>logit zₜ</translation>
    </message>
    <message>
        <source>log Σ e^z</source>
        <translation>log Σ e^z</translation>
    </message>
    <message>
        <source>p(target)</source>
        <translation>p(target)</translation>
    </message>
    <message>
        <source>−log p(target)</source>
        <translation>−log p(target)</translation>
    </message>
    <message>
        <source>in the loss?</source>
        <translation>计入损失？</translation>
    </message>
    <message>
        <source>The target&apos;s logit: z[t, target]</source>
        <translation>目标词元的 logit：z[t, target]</translation>
    </message>
    <message>
        <source>log of the softmax&apos;s denominator: log Σᵤ exp(z[t, u])</source>
        <translation>softmax 分母的对数：log Σᵤ exp(z[t, u])</translation>
    </message>
    <message>
        <source>softmax probability of the correct token = exp(zₜ − log Σ e^z)</source>
        <translation>正确词元的 softmax 概率 = exp(zₜ − log Σ e^z)</translation>
    </message>
    <message>
        <source>cross-entropy of this position = log Σ e^z − zₜ</source>
        <translation>该位置的交叉熵 = log Σ e^z − zₜ</translation>
    </message>
    <message>
        <source>&lt;b&gt;Label-smoothed cross-entropy, summed&lt;/b&gt; &amp;nbsp;&lt;tt&gt;%1&lt;/tt&gt;&lt;span style=&apos;color:#555&apos;&gt; &amp;nbsp;— pad targets (&lt;b&gt;%2&lt;/b&gt;) ignored&lt;/span&gt;</source>
        <translation>&lt;b&gt;标签平滑交叉熵（求和）&lt;/b&gt; &amp;nbsp;&lt;tt&gt;%1&lt;/tt&gt;&lt;span style=&apos;color:#555&apos;&gt; &amp;nbsp;— 忽略填充目标（&lt;b&gt;%2&lt;/b&gt;）&lt;/span&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Cross-entropy loss&lt;/b&gt; &amp;nbsp;&lt;tt&gt;%1&lt;/tt&gt;&lt;span style=&apos;color:#555&apos;&gt; &amp;nbsp;— per position: softmax of the logits, p of the correct token, −log p; pad targets (&lt;b&gt;%2&lt;/b&gt;, id %3) are ignored.&lt;/span&gt;</source>
        <translation>&lt;b&gt;交叉熵损失&lt;/b&gt; &amp;nbsp;&lt;tt&gt;%1&lt;/tt&gt;&lt;span style=&apos;color:#555&apos;&gt; &amp;nbsp;— −log softmax(logits)[目标]；填充 &lt;b&gt;%2&lt;/b&gt;（%3）不计。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>No data yet — run the forward pass to see the loss.</source>
        <translation>暂无数据 — 运行前向传播后即可查看损失。</translation>
    </message>
    <message>
        <source>This trace has no logits to compute the loss from.</source>
        <translation>此追踪中没有可用于计算损失的 logits。</translation>
    </message>
    <message>
        <source>No expected output for this target.
The loss compares the prediction with dec_output (the target shifted left, ending with the end token %1); type a target sentence that starts with %2 to see it.</source>
        <translation>该目标句子没有期望输出。
损失将预测与 dec_output（目标句子左移一位，并以结束词元 %1 结尾）进行比较；请输入一个以 %2 开头的目标句子以查看损失。</translation>
    </message>
    <message>
        <source>&lt;i&gt;ignored: the target here is the pad token %1 (id %2), which the loss leaves out of the sum&lt;/i&gt;</source>
        <translation>&lt;i&gt;已忽略：此处的目标是填充词元 %1（id %2），损失求和时不计入它&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;ignored: the target here is the pad token %1 (id %2), which the loss leaves out of the mean&lt;/i&gt;</source>
        <translation>&lt;i&gt;已忽略：此处的目标是填充词元 %1（id %2），损失求平均时不计入它&lt;/i&gt;</translation>
    </message>
    <message>
        <source>position t: input → target</source>
        <translation>位置 t：输入 → 目标</translation>
    </message>
    <message>
        <source>tgt_vocab</source>
        <translation>tgt_vocab</translation>
    </message>
    <message>
        <source>logits z = %1</source>
        <translation>logits z = %1</translation>
    </message>
    <message>
        <source>logit</source>
        <translation>logit</translation>
    </message>
    <message>
        <source>softmax p (target outlined)</source>
        <translation>softmax p（目标已描边）</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>target q: %1 on the target, %2 elsewhere</source>
        <translation>目标 q：目标词元上为 %1，其余为 %2</translation>
    </message>
    <message>
        <source>The label-smoothed target: 1 − ε = %1 on the expected token and ε/(V−1) = %2 on each of the other %3 tokens (ε = %4)</source>
        <translation>标签平滑后的目标：期望词元上为 1 − ε = %1，其余 %3 个词元上各为 ε/(V−1) = %2（ε = %4）</translation>
    </message>
    <message>
        <source>q</source>
        <translation>q</translation>
    </message>
    <message>
        <source>−Σ q log p</source>
        <translation>−Σ q log p</translation>
    </message>
    <message>
        <source>this position&apos;s term: −(1−ε) log p(target) − ε/(V−1) Σ of log p over the other tokens</source>
        <translation>该位置的项：−(1−ε) log p(target) − ε/(V−1) Σ（其余词元的 log p 之和）</translation>
    </message>
    <message>
        <source>&lt;b&gt;position %1&lt;/b&gt; (%2)&lt;br&gt;</source>
        <translation>&lt;b&gt;位置 %1&lt;/b&gt;（%2）&lt;br&gt;</translation>
    </message>
    <message>
        <source>p[%1, &lt;b&gt;%2&lt;/b&gt;] = exp(z) / Σ exp(z) = exp(%3 − %4) = &lt;b&gt;%5&lt;/b&gt;</source>
        <translation>p[%1, &lt;b&gt;%2&lt;/b&gt;] = exp(z) / Σ exp(z) = exp(%3 − %4) = &lt;b&gt;%5&lt;/b&gt;</translation>
    </message>
    <message>
        <source>logit z[%1, &lt;b&gt;%2&lt;/b&gt;] = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>logit z[%1, &lt;b&gt;%2&lt;/b&gt;] = &lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;the correct token: −log p = %1</source>
        <translation>&lt;br&gt;正确词元：−log p = %1</translation>
    </message>
    <message>
        <source>ignored (ignore_index=%1)</source>
        <translation>已忽略 (ignore_index=%1)</translation>
    </message>
    <message>
        <source>✔ counted</source>
        <translation>✔ 计入</translation>
    </message>
    <message>
        <source>The target at position %1 is the pad token %2 (id %3): the loss skips it, so it adds nothing to the sum and is not counted.</source>
        <translation>位置 %1 的目标是填充词元 %2（id %3）：损失跳过它，因此它不增加总和，也不计数。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Sentence %1:&lt;/b&gt; &amp;nbsp;%2 = &lt;b&gt;%3&lt;/b&gt; &amp;nbsp;&lt;span style=&apos;color:#555&apos;&gt;(%4 counted%5)&lt;/span&gt;</source>
        <translation>&lt;b&gt;句子 %1：&lt;/b&gt; &amp;nbsp;%2 = &lt;b&gt;%3&lt;/b&gt; &amp;nbsp;&lt;span style=&apos;color:#555&apos;&gt;（计入 %4 个%5）&lt;/span&gt;</translation>
    </message>
    <message>
        <source>, %1 ignored</source>
        <translation>，忽略 %1 个</translation>
    </message>
    <message>
        <source>loss = %1 = &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>loss = %1 = &lt;b&gt;%2&lt;/b&gt;</translation>
    </message>
    <message>
        <source>loss = &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>loss = &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>loss = (%1) / (%2) = %3 / %4 = &lt;b&gt;%5&lt;/b&gt;</source>
        <translation>loss = (%1) / (%2) = %3 / %4 = &lt;b&gt;%5&lt;/b&gt;</translation>
    </message>
    <message>
        <source>loss = %1 / %2 = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>loss = %1 / %2 = &lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Sum over the batch:&lt;/b&gt; &amp;nbsp;</source>
        <translation>&lt;b&gt;对批求和：&lt;/b&gt; &amp;nbsp;</translation>
    </message>
    <message>
        <source>&lt;b&gt;Mean over the batch:&lt;/b&gt; &amp;nbsp;</source>
        <translation>&lt;b&gt;对批求平均：&lt;/b&gt; &amp;nbsp;</translation>
    </message>
    <message>
        <source> &amp;nbsp;&lt;span style=&apos;color:#2e7d32&apos;&gt;✔ the model&apos;s &lt;tt&gt;loss&lt;/tt&gt; = %1&lt;/span&gt;</source>
        <translation> &amp;nbsp;&lt;span style=&apos;color:#2e7d32&apos;&gt;✔ 模型的 &lt;tt&gt;loss&lt;/tt&gt; = %1&lt;/span&gt;</translation>
    </message>
    <message>
        <source> &amp;nbsp;&lt;span style=&apos;color:#b00020&apos;&gt;≠ the model&apos;s &lt;tt&gt;loss&lt;/tt&gt; = %1&lt;/span&gt;</source>
        <translation> &amp;nbsp;&lt;span style=&apos;color:#b00020&apos;&gt;≠ 模型的 &lt;tt&gt;loss&lt;/tt&gt; = %1&lt;/span&gt;</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Stepformer</source>
        <translation>Stepformer</translation>
    </message>
    <message>
        <source>Forward Pass</source>
        <translation>前向传播</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Explanation</source>
        <translation>讲解</translation>
    </message>
    <message>
        <source>Sentences</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Training failed</source>
        <translation>训练失败</translation>
    </message>
    <message>
        <source>GPU lost</source>
        <translation>GPU 丢失</translation>
    </message>
    <message>
        <source>the current model&apos;s</source>
        <translation>当前模型的</translation>
    </message>
    <message>
        <source>No backward pass: the loss needs a target that starts with %1.</source>
        <translation>无法进行反向传播：损失需要一个以 %1 开头的目标句子。</translation>
    </message>
    <message>
        <source>Backward Pass</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>The views keep the shown model: a run computes no backward pass (switch to the forward pass to watch it).</source>
        <translation>视图保留当前显示的模型：训练运行不计算反向传播（切换到前向传播即可实时观察）。</translation>
    </message>
    <message>
        <source>The views keep the shown model: the run trains a model of another size or vocabulary.</source>
        <translation>视图保留当前显示的模型：本次运行训练的模型大小或词表不同。</translation>
    </message>
    <message>
        <source>training: views not live</source>
        <translation>训练中：视图未实时更新</translation>
    </message>
    <message>
        <source>live: epoch %1, step %2/%3</source>
        <translation>实时：第 %1 轮，第 %2/%3 步</translation>
    </message>
    <message>
        <source>The views show the forward pass of these sentences on the weights being trained, after step %1 (loss of that step %2). When the run ends the views take its weights; Reset goes back to the model shown before.</source>
        <translation>视图显示的是这些句子在正在训练的权重上的前向传播，取自第 %1 步之后（该步损失为 %2）。运行结束后视图将采用其权重；“重置”可回到之前显示的模型。</translation>
    </message>
    <message>
        <source>expected output (dec_outputs): %1</source>
        <translation>期望输出 (dec_outputs)：%1</translation>
    </message>
    <message>
        <source> · loss %1</source>
        <translation> · 损失 %1</translation>
    </message>
    <message>
        <source>no loss: the target does not start with %1</source>
        <translation>无损失：目标句子不以 %1 开头</translation>
    </message>
    <message>
        <source>There is no current step to export.</source>
        <translation>当前没有可导出的步骤。</translation>
    </message>
    <message>
        <source>There is no view to export.</source>
        <translation>没有可导出的视图。</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>The current step&apos;s tensor as a heatmap, with the tutorial&apos;s axis names (Ctrl+1)</source>
        <translation>以热力图显示当前步骤的张量，坐标轴名称与教程一致 (Ctrl+1)</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Attention weights: which key each query looks at, per head (Ctrl+2)</source>
        <translation>注意力权重：每个头中，每个查询关注哪些键 (Ctrl+2)</translation>
    </message>
    <message>
        <source>Masks</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>The pad and subsequence masks (Ctrl+3)</source>
        <translation>填充掩码和后续掩码 (Ctrl+3)</translation>
    </message>
    <message>
        <source>Positional Encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>The sinusoidal positional-encoding table and its sum with the embeddings (Ctrl+4)</source>
        <translation>正弦位置编码表及其与词嵌入之和 (Ctrl+4)</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>Greedy decoding, one token per step, with the probabilities and attention (Ctrl+5)</source>
        <translation>贪心解码，每步生成一个词元，并显示概率和注意力 (Ctrl+5)</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>The loss position by position: −log p of each expected token and their mean (Ctrl+6)</source>
        <translation>逐位置的损失：每个期望词元的 −log p 及其平均值 (Ctrl+6)</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>The backward pass: each tensor beside its gradient, a weight, its gradient and the optimizer&apos;s update (Ctrl+7)</source>
        <translation>反向传播：每个张量与其梯度并排显示，另有某个权重、它的梯度以及优化器的更新量（Ctrl+7）</translation>
    </message>
    <message>
        <source>targets (each next word): %1</source>
        <translation>目标（每个位置的下一个词）：%1</translation>
    </message>
</context>
<context>
    <name>MaskView</name>
    <message>
        <source>Which sentence of the batch to show</source>
        <translation>显示批中的哪个句子</translation>
    </message>
    <message>
        <source>The attention block whose masking is shown below</source>
        <translation>下方显示其掩码过程的注意力块</translation>
    </message>
    <message>
        <source>The layer whose masking is shown below</source>
        <translation>下方显示其掩码过程的层</translation>
    </message>
    <message>
        <source>The attention head whose scores are shown below</source>
        <translation>下方显示其注意力分数的注意力头</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Block:</source>
        <translation>块：</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>&lt;b&gt;The masks&lt;/b&gt; — 1 (dark, hatched) = masked: the query in that row may not look at the key in that column.</source>
        <translation>&lt;b&gt;掩码&lt;/b&gt; — 1（深色、斜线阴影）= 被掩码：该行的查询不能关注该列的键。</translation>
    </message>
    <message>
        <source>masked_fill
(mask,
−1e9)
→</source>
        <translation>masked_fill
(mask,
−1e9)
→</translation>
    </message>
    <message>
        <source>softmax
(each
row)
→</source>
        <translation>softmax
（按行
计算）
→</translation>
    </message>
    <message>
        <source>masked_fill
(mask == 0,
−1e9)
→</source>
        <translation>masked_fill
(mask == 0,
−1e9)
→</translation>
    </message>
    <message>
        <source>+ mask
(0 / −∞)
→</source>
        <translation>+ 掩码
(0 / −∞)
→</translation>
    </message>
    <message>
        <source>&lt;b&gt;The masks&lt;/b&gt;, this project&apos;s convention — &lt;b&gt;1 = keep&lt;/b&gt;, 0 (hatched) = masked: the opposite of the tutorial&apos;s. src_mask is one row for every query; slf_attn and enc_attn both read it.</source>
        <translation>&lt;b&gt;掩码&lt;/b&gt;，采用该项目的约定 — &lt;b&gt;1 = 保留&lt;/b&gt;，0（斜线阴影）= 被掩码：与教程的约定正好相反。src_mask 只有一行，所有查询共用；slf_attn 和 enc_attn 都读取它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;The masks&lt;/b&gt;, PyTorch&apos;s convention — added to the scores: 0 = may attend, −∞ (hatched) = ignored. Each block merges its attn_mask and key_padding_mask (True = ignore) into one.</source>
        <translation>&lt;b&gt;掩码&lt;/b&gt;，采用 PyTorch 的约定 — 加到注意力分数上：0 = 可以关注，−∞（斜线阴影）= 被忽略。每个块把自己的 attn_mask 和 key_padding_mask（True = 忽略）合并成一个掩码。</translation>
    </message>
    <message>
        <source>No data yet — run the forward pass to see the masks.</source>
        <translation>暂无数据 — 运行前向传播即可查看掩码。</translation>
    </message>
    <message>
        <source>No masks in this trace.</source>
        <translation>此追踪记录中没有掩码。</translation>
    </message>
    <message>
        <source>src_mask (slf_attn)</source>
        <translation>src_mask (slf_attn)</translation>
    </message>
    <message>
        <source>trg_mask (slf_attn, causal)</source>
        <translation>trg_mask（slf_attn，因果）</translation>
    </message>
    <message>
        <source>src_mask (enc_attn)</source>
        <translation>src_mask (enc_attn)</translation>
    </message>
    <message>
        <source>encoder self_attn mask</source>
        <translation>编码器 self_attn 掩码</translation>
    </message>
    <message>
        <source>decoder self_attn mask (causal)</source>
        <translation>解码器 self_attn 掩码（因果）</translation>
    </message>
    <message>
        <source>multihead_attn mask</source>
        <translation>multihead_attn 掩码</translation>
    </message>
    <message>
        <source>encoder pad mask</source>
        <translation>编码器填充掩码</translation>
    </message>
    <message>
        <source>decoder pad mask</source>
        <translation>解码器填充掩码</translation>
    </message>
    <message>
        <source>subsequence mask</source>
        <translation>后续掩码</translation>
    </message>
    <message>
        <source>decoder self-attn mask</source>
        <translation>解码器自注意力掩码</translation>
    </message>
    <message>
        <source>decoder–encoder pad mask</source>
        <translation>解码器-编码器填充掩码</translation>
    </message>
    <message>
        <source>“%1” is not in this trace.</source>
        <translation>此追踪记录中没有“%1”。</translation>
    </message>
    <message>
        <source>the scores before masking (&lt;tt&gt;(q / temperature) · kᵀ&lt;/tt&gt;), after &lt;tt&gt;masked_fill(mask == 0, −1e9)&lt;/tt&gt;, and after the softmax — the masked (hatched) positions become exactly &lt;b&gt;0&lt;/b&gt;.</source>
        <translation>掩码前的分数（&lt;tt&gt;(q / temperature) · kᵀ&lt;/tt&gt;）、&lt;tt&gt;masked_fill(mask == 0, −1e9)&lt;/tt&gt; 之后的分数，以及 softmax 之后的结果 — 被掩码（斜线阴影）的位置恰好变为 &lt;b&gt;0&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>the scores before masking, &lt;tt&gt;scores + attn_mask&lt;/tt&gt; (−∞ where a key is ignored), and after the softmax — the ignored (hatched) positions become exactly &lt;b&gt;0&lt;/b&gt;.</source>
        <translation>掩码前的分数、&lt;tt&gt;scores + attn_mask&lt;/tt&gt;（被忽略的键处为 −∞），以及 softmax 之后的结果 — 被忽略（斜线阴影）的位置恰好变为 &lt;b&gt;0&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>the scores before masking, after &lt;tt&gt;masked_fill_(attn_mask, −1e9)&lt;/tt&gt;, and after the softmax — the masked (hatched) positions become exactly &lt;b&gt;0&lt;/b&gt;.</source>
        <translation>掩码前的分数、&lt;tt&gt;masked_fill_(attn_mask, −1e9)&lt;/tt&gt; 之后的分数，以及 softmax 之后的结果 — 被掩码（斜线阴影）的位置恰好变为 &lt;b&gt;0&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>&lt;b&gt;How every layer&apos;s %1 uses this mask&lt;/b&gt; (the layer picked above, head %2, sentence %3): %4</source>
        <translation>&lt;b&gt;每一层的%1如何使用这个掩码&lt;/b&gt;（上方所选的层，头 %2，句子 %3）：%4</translation>
    </message>
    <message>
        <source>&lt;b&gt;Masking in layer %1&apos;s %2, head %3&lt;/b&gt; (sentence %4): %5</source>
        <translation>&lt;b&gt;第 %1 层%2中的掩码，头 %3&lt;/b&gt;（句子 %4）：%5</translation>
    </message>
    <message>
        <source>1. scores = (q/√d_k)·kᵀ</source>
        <translation>1. 分数 = (q/√d_k)·kᵀ</translation>
    </message>
    <message>
        <source>1. scores: q·kᵀ/√head_dim</source>
        <translation>1. 分数：q·kᵀ/√head_dim</translation>
    </message>
    <message>
        <source>1. scores = QKᵀ/√d_k</source>
        <translation>1. 分数 = QKᵀ/√d_k</translation>
    </message>
    <message>
        <source>&lt;i&gt;The mask is 0 here: the next step replaces this score by &lt;b&gt;−1e9&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;此处掩码为 0：下一步会把这个分数替换为 &lt;b&gt;−1e9&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;The mask is −∞ here: the next step adds it to this score.&lt;/i&gt;</source>
        <translation>&lt;i&gt;此处掩码为 −∞：下一步会把它加到这个分数上。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>&lt;i&gt;The mask is 1 here: the next step replaces this score by &lt;b&gt;−1e9&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;此处掩码为 1：下一步会把这个分数替换为 &lt;b&gt;−1e9&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>2. scores + mask</source>
        <translation>2. 分数 + 掩码</translation>
    </message>
    <message>
        <source>2. masked scores</source>
        <translation>2. 掩码后的分数</translation>
    </message>
    <message>
        <source>3. attn = softmax</source>
        <translation>3. attn = softmax</translation>
    </message>
    <message>
        <source>masked_fill
(mask == 0,
−∞)
→</source>
        <translation>masked_fill
(mask == 0,
−∞)
→</translation>
    </message>
    <message>
        <source>&lt;b&gt;The mask&lt;/b&gt; — &lt;b&gt;1 = keep&lt;/b&gt;, 0 (hatched) = masked: the opposite of the tutorial&apos;s. Each attention block has its own causal mask: a word sees itself and the words before it, never a later one.</source>
        <translation>&lt;b&gt;掩码&lt;/b&gt; — &lt;b&gt;1 = 保留&lt;/b&gt;，0（斜线阴影）= 被掩码：与教程的约定正好相反。每个注意力块都有自己的因果掩码：一个词能看到它自己及其之前的词，永远看不到后面的词。</translation>
    </message>
    <message>
        <source>%1 (causal, 1 = keep)</source>
        <translation>%1（因果，1 = 保留）</translation>
    </message>
    <message>
        <source>the scores before masking (&lt;tt&gt;(q · kᵀ) · (1/√%1)&lt;/tt&gt;), after &lt;tt&gt;masked_fill(mask == 0, %2)&lt;/tt&gt;, and after the softmax — the masked (hatched) positions become exactly &lt;b&gt;0&lt;/b&gt;.</source>
        <translation>掩码前的分数（&lt;tt&gt;(q · kᵀ) · (1/√%1)&lt;/tt&gt;）、&lt;tt&gt;masked_fill(mask == 0, %2)&lt;/tt&gt; 之后的分数，以及 softmax 之后的结果 — 被掩码（斜线阴影）的位置恰好变为 &lt;b&gt;0&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>1. scores = (q·kᵀ)/√%1</source>
        <translation>1. 分数 = (q·kᵀ)/√%1</translation>
    </message>
    <message>
        <source>&lt;i&gt;The mask is 0 here: the next step replaces this score by &lt;b&gt;−∞&lt;/b&gt;.&lt;/i&gt;</source>
        <translation>&lt;i&gt;此处掩码为 0：下一步会把这个分数替换为 &lt;b&gt;−∞&lt;/b&gt;。&lt;/i&gt;</translation>
    </message>
</context>
<context>
    <name>ModelChooser</name>
    <message>
        <source>The weights of the last run of the Train panel</source>
        <translation>训练面板最近一次训练得到的权重</translation>
    </message>
    <message>
        <source>From file…</source>
        <translation>从文件加载…</translation>
    </message>
    <message>
        <source>Trained in the app</source>
        <translation>在应用中训练</translation>
    </message>
    <message>
        <source>From File…</source>
        <translation>从文件加载…</translation>
    </message>
    <message>
        <source>Train again</source>
        <translation>重新训练</translation>
    </message>
    <message>
        <source>Could not remove the cached model %1.</source>
        <translation>无法删除缓存的模型 %1。</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>%1 model (%2)</source>
        <translation>%1 模型（%2）</translation>
    </message>
</context>
<context>
    <name>ParameterPane</name>
    <message>
        <source>Which weight to show with its gradient and update</source>
        <translation>选择要显示的权重（连同其梯度和更新量）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Weight:&lt;/b&gt;</source>
        <translation>&lt;b&gt;权重：&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Every entry</source>
        <translation>全部元素</translation>
    </message>
    <message>
        <source>Show every entry of the weight (zoom with Ctrl+wheel and scroll) instead of its blocks</source>
        <translation>显示权重的每一个元素（用 Ctrl+滚轮缩放，并可滚动查看），而不是分块显示</translation>
    </message>
    <message>
        <source>‖W‖ = %1, ‖∂loss/∂W‖ = %2</source>
        <translation>‖W‖ = %1，‖∂loss/∂W‖ = %2</translation>
    </message>
    <message>
        <source>, ‖ΔW‖ = %1 with %2, step %3</source>
        <translation>，‖ΔW‖ = %1（%2，第 %3 步）</translation>
    </message>
    <message>
        <source>&lt;br&gt;No optimizer given: the update cannot be previewed.</source>
        <translation>&lt;br&gt;未指定优化器：无法预览更新量。</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;span style=&apos;color:#555&apos;&gt;Adam divides the (averaged) gradient by its running RMS, so every weight moves about lr against the sign of its gradient.&lt;/span&gt;</source>
        <translation>&lt;br&gt;&lt;span style=&apos;color:#555&apos;&gt;Adam 把（平均后的）梯度除以其滑动均方根（RMS），因此每个权重都沿其梯度符号的反方向移动大约 lr。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;span style=&apos;color:#555&apos;&gt;SGD with momentum: ΔW = −lr · (momentum buffer + gradient).&lt;/span&gt;</source>
        <translation>&lt;br&gt;&lt;span style=&apos;color:#555&apos;&gt;带动量的 SGD：ΔW = −lr · (动量缓冲 + 梯度)。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Pick a weight to see its gradient and the optimizer&apos;s update.</source>
        <translation>选择一个权重，查看它的梯度和优化器的更新量。</translation>
    </message>
    <message>
        <source>Every entry is shown. Hover a cell for its weight, gradient and update.</source>
        <translation>已显示全部元素。将鼠标悬停在格子上可查看其权重、梯度和更新量。</translation>
    </message>
    <message>
        <source>%1 entries, shown as %2 × %3 blocks of %4 × %5: each cell is the block&apos;s largest entry (with its sign). Hover a cell to see which entry it is.</source>
        <translation>共 %1 个元素，显示为 %2 × %3 个块，每块 %4 × %5：每个格子显示该块中绝对值最大的元素（保留符号）。将鼠标悬停在格子上可查看它是哪个元素。</translation>
    </message>
    <message>
        <source>Every one of the %1 entries: Ctrl+wheel zooms, the wheel scrolls.</source>
        <translation>全部 %1 个元素：Ctrl+滚轮缩放，滚轮滚动。</translation>
    </message>
    <message>
        <source>%1 · %2 per cell</source>
        <translation>%1 · 每格 %2 个</translation>
    </message>
    <message>
        <source>%1 (block&apos;s largest)</source>
        <translation>%1（块内最大值）</translation>
    </message>
    <message>
        <source>W</source>
        <translation>W</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>∂loss/∂W</source>
        <translation>∂loss/∂W</translation>
    </message>
    <message>
        <source>gradient</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>ΔW (next step)</source>
        <translation>ΔW（下一步）</translation>
    </message>
    <message>
        <source>update</source>
        <translation>更新量</translation>
    </message>
    <message>
        <source>No optimizer</source>
        <translation>无优化器</translation>
    </message>
    <message>
        <source>&lt;i&gt;Block: rows %1, columns %2; its largest %3 is&lt;/i&gt;&lt;br&gt;</source>
        <translation>&lt;i&gt;块：行 %1，列 %2；其中最大的%3为&lt;/i&gt;&lt;br&gt;</translation>
    </message>
    <message>
        <source>%1  — NaN/inf</source>
        <translation>%1  — NaN/无穷大</translation>
    </message>
    <message>
        <source>row %1, column %2</source>
        <translation>第 %1 行、第 %2 列</translation>
    </message>
    <message>
        <source>entry %1</source>
        <translation>第 %1 个元素</translation>
    </message>
    <message numerus="yes">
        <source>&lt;span style=&apos;color:#c62828&apos;&gt;⚠ This weight holds %n NaN or infinite value(s), shown magenta; the first is at %1. Everything computed from it is NaN.&lt;/span&gt;&lt;br&gt;</source>
        <translation>
            <numerusform>&lt;span style=&apos;color:#c62828&apos;&gt;⚠ 这个权重含有 %n 个 NaN 或无穷大的值，以品红色显示；第一个位于%1。由它算出的一切都是 NaN。&lt;/span&gt;&lt;br&gt;</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PeHeatmap</name>
    <message>
        <source>No data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>row %1, column %2: %3</source>
        <translation>第 %1 行，第 %2 列：%3</translation>
    </message>
    <message>
        <source>Positional encoding heatmap</source>
        <translation>位置编码热力图</translation>
    </message>
</context>
<context>
    <name>PositionalEncodingView</name>
    <message>
        <source>Number of positions (rows of the table, points of each curve)</source>
        <translation>位置数（表格的行数，每条曲线的点数）</translation>
    </message>
    <message>
        <source>d_model: number of dimensions (columns of the table)</source>
        <translation>d_model：维度数（表格的列数）</translation>
    </message>
    <message>
        <source>Dimensions to plot against position, e.g. &quot;0, 1, 4, 5&quot; or &quot;0-3&quot;.
Even dimensions are sines, odd ones cosines. Clicking a column of the table adds or removes it.</source>
        <translation>要随位置绘制的维度，例如“0, 1, 4, 5”或“0-3”。
偶数维是正弦，奇数维是余弦。点击表格中的某一列可添加或移除该维度。</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Back to the length and d_model of the current trace</source>
        <translation>恢复为当前追踪记录的长度和 d_model</translation>
    </message>
    <message>
        <source>Positions:</source>
        <translation>位置数：</translation>
    </message>
    <message>
        <source>d_model:</source>
        <translation>d_model:</translation>
    </message>
    <message>
        <source>Plot dimensions:</source>
        <translation>绘制维度：</translation>
    </message>
    <message>
        <source>PE(pos, 2i) = sin(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;) &amp;nbsp;&amp;nbsp; PE(pos, 2i+1) = cos(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;)</source>
        <translation>PE(pos, 2i) = sin(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;) &amp;nbsp;&amp;nbsp; PE(pos, 2i+1) = cos(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;)</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>dimension (click a column to plot it)</source>
        <translation>维度（点击某一列即可绘制）</translation>
    </message>
    <message>
        <source>PE[pos %1, dim %2] = %3(%1 / 10000^(%4/%5)) = %6</source>
        <translation>PE[pos %1, dim %2] = %3(%1 / 10000^(%4/%5)) = %6</translation>
    </message>
    <message>
        <source>PE value against position, per dimension</source>
        <translation>各维度的 PE 值随位置的变化</translation>
    </message>
    <message>
        <source>PE value</source>
        <translation>PE 值</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>Run a forward pass to see the sum for the current sentence</source>
        <translation>运行一次前向传播，即可查看当前句子的相加结果</translation>
    </message>
    <message>
        <source>Positional encoding table PE  [%1 positions × d_model %2]</source>
        <translation>位置编码表 PE  [%1 个位置 × d_model %2]</translation>
    </message>
    <message>
        <source>use numbers like 0, 1, 4, 5 or 0-3</source>
        <translation>请使用 0, 1, 4, 5 或 0-3 这样的数字</translation>
    </message>
    <message>
        <source>ignored %1 (d_model = %2)</source>
        <translation>已忽略 %1（d_model = %2）</translation>
    </message>
    <message>
        <source>only the first %1 are plotted</source>
        <translation>只绘制了前 %1 个</translation>
    </message>
    <message>
        <source>dim %1 %2</source>
        <translation>维度 %1 %2</translation>
    </message>
    <message>
        <source>Decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Token embedding
%1</source>
        <translation>词元嵌入
%1</translation>
    </message>
    <message>
        <source>Positional encoding
%1</source>
        <translation>位置编码
%1</translation>
    </message>
    <message>
        <source>%1 input
%2</source>
        <translation>%1输入
%2</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 input = token embedding + positional encoding&lt;/b&gt; (no trace yet)</source>
        <translation>&lt;b&gt;%1输入 = 词元嵌入 + 位置编码&lt;/b&gt;（尚无追踪记录）</translation>
    </message>
    <message>
        <source>Token embedding
%1[0]</source>
        <translation>词元嵌入
%1[0]</translation>
    </message>
    <message>
        <source>%1 input
%2[0]</source>
        <translation>%1输入
%2[0]</translation>
    </message>
    <message>
        <source>%1, dim %2
embedding %3 + PE %4 = %5</source>
        <translation>%1，维度 %2
嵌入 %3 + PE %4 = %5</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 input for the current sentence&lt;/b&gt; (batch item 0: &lt;i&gt;%2&lt;/i&gt;): token embedding + positional encoding; dropout and &lt;tt&gt;%3.layer_norm&lt;/tt&gt; follow before layer 0. One colour scale for all three.</source>
        <translation>&lt;b&gt;当前句子的%1输入&lt;/b&gt;（批中第 0 项：&lt;i&gt;%2&lt;/i&gt;）：词元嵌入 + 位置编码；在第 0 层之前还要经过 dropout 和 &lt;tt&gt;%3.layer_norm&lt;/tt&gt;。三者使用同一色标。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 input for the current sentence&lt;/b&gt; (batch item 0: &lt;i&gt;%2&lt;/i&gt;): token embedding + positional encoding = input of layer 0. One colour scale for all three.</source>
        <translation>&lt;b&gt;当前句子的%1输入&lt;/b&gt;（批中第 0 项：&lt;i&gt;%2&lt;/i&gt;）：词元嵌入 + 位置编码 = 第 0 层的输入。三者使用同一色标。</translation>
    </message>
    <message>
        <source> &lt;span style=&apos;color:#b00020&apos;&gt;Dropout was active in this pass: the input is dropout(embedding + PE).&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#b00020&apos;&gt;本次前向传播中 dropout 处于启用状态：输入为 dropout(embedding + PE)。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>wpe[pos %1, dim %2] = %3: learned, no formula</source>
        <translation>wpe[pos %1, dim %2] = %3：可学习的值，没有公式</translation>
    </message>
    <message>
        <source>Learned value against position, per dimension</source>
        <translation>各维度的可学习值随位置的变化</translation>
    </message>
    <message>
        <source>Learned position table wpe  [first %1 positions × n_embd %2]</source>
        <translation>可学习的位置表 wpe  [前 %1 个位置 × n_embd %2]</translation>
    </message>
    <message>
        <source>dim %1</source>
        <translation>维度 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Learned positions&lt;/b&gt;: wpe is a weight [block_size × n_embd] trained like any other,&lt;br&gt;one row per position — no formula; the pass adds its first %1 rows.</source>
        <translation>&lt;b&gt;可学习的位置&lt;/b&gt;：wpe 是一个权重 [block_size × n_embd]，和其他权重一样参与训练，&lt;br&gt;每个位置一行 — 没有公式；本次前向传播加上它的前 %1 行。</translation>
    </message>
</context>
<context>
    <name>PresetTrainer</name>
    <message>
        <source>the training stopped</source>
        <translation>训练已停止</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>No file name given</source>
        <translation>未指定文件名</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Cannot export %1: no view to export</source>
        <translation>无法导出 %1：没有可导出的视图</translation>
    </message>
    <message>
        <source>Cannot export %1: the view could not be captured</source>
        <translation>无法导出 %1：无法截取视图</translation>
    </message>
    <message>
        <source>Cannot export %1: PNG encoding failed</source>
        <translation>无法导出 %1：PNG 编码失败</translation>
    </message>
    <message>
        <source>Exported from Stepformer</source>
        <translation>由 Stepformer 导出</translation>
    </message>
    <message>
        <source>Cannot export %1: SVG painting failed</source>
        <translation>无法导出 %1：SVG 绘制失败</translation>
    </message>
    <message>
        <source>Cannot export %1: SVG generation produced nothing</source>
        <translation>无法导出 %1：生成的 SVG 为空</translation>
    </message>
    <message>
        <source>Cannot export %1: the tensor&apos;s shape does not match its data</source>
        <translation>无法导出 %1：张量的形状与其数据不符</translation>
    </message>
    <message>
        <source>Cannot export %1: %2</source>
        <translation>无法导出 %1：%2</translation>
    </message>
    <message>
        <source>query token</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>key token</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>equal bit for bit</source>
        <translation>逐位完全相同</translation>
    </message>
    <message>
        <source>differs in %1 of %2 numbers by ≤ %3 ulp (max |Δ| = %4)</source>
        <translation>%2 个数中有 %1 个不同，相差 ≤ %3 ulp（最大 |Δ| = %4）</translation>
    </message>
    <message>
        <source>Cannot export %1: this pass has no gradients (it needs a target that starts with the start token)</source>
        <translation>无法导出 %1：这一遍没有梯度（需要以起始符开头的目标句）</translation>
    </message>
    <message>
        <source>Cannot export %1: there is no trace to export</source>
        <translation>无法导出 %1：没有可导出的前向过程</translation>
    </message>
</context>
<context>
    <name>ResultsTable</name>
    <message>
        <source>source</source>
        <translation>源句子</translation>
    </message>
    <message>
        <source>expected</source>
        <translation>期望输出</translation>
    </message>
    <message>
        <source>predicted (greedy)</source>
        <translation>预测（贪心）</translation>
    </message>
    <message>
        <source>✓ when the greedy translation is exactly the expected one</source>
        <translation>贪心翻译与期望输出完全一致时显示 ✓</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#777&apos;&gt;Translating %1 sentences with the trained model…&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#777&apos;&gt;正在用训练好的模型翻译 %1 个句子…&lt;/span&gt;</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#777&apos;&gt;After training, every sentence of the dataset is translated greedily (one token at a time, the most probable each time) and compared with the expected output.&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#777&apos;&gt;训练结束后，数据集中的每个句子都会用贪心解码翻译（一次生成一个词元，每次取概率最大的那个），并与期望输出进行比较。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>(cannot translate)</source>
        <translation>（无法翻译）</translation>
    </message>
    <message>
        <source>The greedy translation is exactly the expected one.</source>
        <translation>贪心翻译与期望输出完全一致。</translation>
    </message>
    <message>
        <source>The decoder never produced the end token: it stopped after tgt_len tokens.</source>
        <translation>解码器始终没有生成结束词元：生成 tgt_len 个词元后停止。</translation>
    </message>
    <message>
        <source>The greedy translation differs from the expected one.</source>
        <translation>贪心翻译与期望输出不同。</translation>
    </message>
    <message>
        <source>No sentences.</source>
        <translation>没有句子。</translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:%3&apos;&gt;%1 / %2&lt;/b&gt; translated correctly by greedy decoding.</source>
        <translation>贪心解码正确翻译了 &lt;b style=&apos;color:%3&apos;&gt;%1 / %2&lt;/b&gt; 个句子。</translation>
    </message>
</context>
<context>
    <name>ScalingCompareWindow</name>
    <message>
        <source>Compare Score Scaling — (q/√dₖ)·kᵀ vs (q·kᵀ)/√dₖ</source>
        <translation>比较分数缩放 — (q/√dₖ)·kᵀ 与 (q·kᵀ)/√dₖ</translation>
    </message>
    <message>
        <source>Attention block:</source>
        <translation>注意力块：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>A − B (ulp)</source>
        <translation>A − B (ulp)</translation>
    </message>
    <message>
        <source>&lt;b&gt;0 of %1 numbers differ&lt;/b&gt;: A and B are equal bit for bit, and so is the softmax that follows (max |Δ| = %2).</source>
        <translation>&lt;b&gt;%1 个数中有 0 个不同&lt;/b&gt;：A 与 B 逐位完全相同，其后的 softmax 也是如此（最大 |Δ| = %2）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 of %2 numbers differ, at most %3 ulp&lt;/b&gt; (max |Δ| = %4); the softmax that follows changes by at most %5.</source>
        <translation>&lt;b&gt;%2 个数中有 %1 个不同，最多相差 %3 ulp&lt;/b&gt;（最大 |Δ| = %4）；其后的 softmax 最多变化 %5。</translation>
    </message>
    <message>
        <source>The trace&apos;s own &lt;b&gt;P.scores&lt;/b&gt; is what both orders give here, bit for bit, in Stepformer&apos;s engine (Eigen&apos;s product, then × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;), or the query × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;) first).</source>
        <translation>追踪记录自身的 &lt;b&gt;P.scores&lt;/b&gt; 在这里与两种顺序的结果逐位相同，均由 Stepformer 的计算引擎得出（先用 Eigen 做矩阵乘法再 × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;)，或者先把查询 × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;)）。</translation>
    </message>
    <message>
        <source>The trace&apos;s own &lt;b&gt;P.scores&lt;/b&gt; is &lt;b&gt;B&lt;/b&gt;&apos;s rounding: bit for bit what Stepformer&apos;s engine gives for (q·kᵀ) × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;) (Eigen&apos;s product); the engine&apos;s query-first order %1.</source>
        <translation>追踪记录自身的 &lt;b&gt;P.scores&lt;/b&gt; 是 &lt;b&gt;B&lt;/b&gt; 的舍入结果：与 Stepformer 计算引擎对 (q·kᵀ) × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;)（Eigen 的矩阵乘法）给出的结果逐位相同；与引擎先缩放查询的顺序相比：%1。</translation>
    </message>
    <message>
        <source>The trace&apos;s own &lt;b&gt;P.scores&lt;/b&gt; is &lt;b&gt;A&lt;/b&gt;&apos;s rounding: bit for bit what Stepformer&apos;s engine gives for (q × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;))·kᵀ (Eigen&apos;s product); the engine&apos;s product-first order %1.</source>
        <translation>追踪记录自身的 &lt;b&gt;P.scores&lt;/b&gt; 是 &lt;b&gt;A&lt;/b&gt; 的舍入结果：与 Stepformer 计算引擎对 (q × fl(1/√d&lt;sub&gt;k&lt;/sub&gt;))·kᵀ（Eigen 的矩阵乘法）给出的结果逐位相同；与引擎先做乘积的顺序相比：%1。</translation>
    </message>
    <message>
        <source>The trace&apos;s own &lt;b&gt;P.scores&lt;/b&gt; is neither of Stepformer&apos;s CPU orders bit for bit (a trace computed on a GPU sums in its own order): against the query-first one it %1, against the product-first one %2.</source>
        <translation>追踪记录自身的 &lt;b&gt;P.scores&lt;/b&gt; 与 Stepformer 的两种 CPU 计算顺序都不逐位相同（在 GPU 上计算的追踪记录按自己的顺序求和）：与先缩放查询的顺序相比，%1；与先做乘积的顺序相比，%2。</translation>
    </message>
    <message>
        <source>Against the plain loops of the panels it %1 (A) and %2 (B): a matrix product sums in its own order (in SIMD packets, with fused multiply-adds where the CPU has them), and that moves the last bits as much as the place of the scale.</source>
        <translation>与各面板中普通循环的结果相比——A：%1；B：%2。矩阵乘法按自己的顺序求和（以 SIMD 包为单位，CPU 支持时还会使用融合乘加），这对最后几位的影响与缩放位置的影响一样大。</translation>
    </message>
    <message>
        <source>This trace is %1.</source>
        <translation>此追踪记录来自%1。</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Why they are identical here:&lt;/b&gt; d&lt;sub&gt;k&lt;/sub&gt; = %1 is a power of 4, so √d&lt;sub&gt;k&lt;/sub&gt; = %2 is a power of two. Dividing a float by a power of two only lowers its exponent: it is exact, nothing rounds. Scaling before or after the product then gives the same bits (as for the tutorial&apos;s d&lt;sub&gt;k&lt;/sub&gt; = 64, √64 = 8). The difference shows with a d&lt;sub&gt;k&lt;/sub&gt; that is not a power of 4 (8, 32, 128) — d&lt;sub&gt;k&lt;/sub&gt; is the model&apos;s, not a setting of this window.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;为什么这里两者完全相同：&lt;/b&gt;d&lt;sub&gt;k&lt;/sub&gt; = %1 是 4 的幂，所以 √d&lt;sub&gt;k&lt;/sub&gt; = %2 是 2 的幂。浮点数除以 2 的幂只会降低它的指数：结果是精确的，不发生任何舍入。因此在乘积之前或之后缩放，得到的位完全相同（教程中的 d&lt;sub&gt;k&lt;/sub&gt; = 64、√64 = 8 也是如此）。当 d&lt;sub&gt;k&lt;/sub&gt; 不是 4 的幂（如 8、32、128）时才会出现差异 — d&lt;sub&gt;k&lt;/sub&gt; 由模型决定，不是本窗口的设置。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Same maths, two roundings.&lt;/b&gt; Dividing by √d&lt;sub&gt;k&lt;/sub&gt; before or after the dot product is the same number on paper: (q/√d&lt;sub&gt;k&lt;/sub&gt;)·kᵀ = (q·kᵀ)/√d&lt;sub&gt;k&lt;/sub&gt;. In float32 every operation rounds to 24 bits, and the two orders round at different places, so the last bit or two can differ. One &lt;i&gt;ulp&lt;/i&gt; is the gap between a float and the next one.&lt;/p&gt;&lt;p&gt;&lt;b&gt;A&lt;/b&gt; = (q/√d&lt;sub&gt;k&lt;/sub&gt;)·kᵀ, the query scaled first: attention-is-all-you-need-pytorch (seed 003: &lt;tt&gt;q / temperature&lt;/tt&gt;, &lt;tt&gt;temperature = d_k ** 0.5&lt;/tt&gt;) and PyTorch&apos;s nn.MultiheadAttention (seeds 002 and 004; 1.13: &lt;tt&gt;q / math.sqrt(head_dim)&lt;/tt&gt;).&lt;br&gt;&lt;b&gt;B&lt;/b&gt; = (q·kᵀ)/√d&lt;sub&gt;k&lt;/sub&gt;, the product scaled: the tutorial (seed 001: &lt;tt&gt;matmul(Q, K.transpose(-1, -2)) / np.sqrt(d_k)&lt;/tt&gt;).&lt;/p&gt;&lt;p&gt;Both are computed here from the trace&apos;s P.Q and P.K in float32, in one loop that sums the same products in the same order (i = 0 … d&lt;sub&gt;k&lt;/sub&gt;−1) without fused multiply-adds, and divide by √d&lt;sub&gt;k&lt;/sub&gt; rounded to float32 (%1), as torch does with a Python or NumPy float; so only the place of the division differs. A real GEMM (PyTorch&apos;s, Eigen&apos;s) sums in its own order and may fuse, which moves the last bits again.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;数学相同，舍入不同。&lt;/b&gt;在点积之前或之后除以 √d&lt;sub&gt;k&lt;/sub&gt;，在纸面上是同一个数：(q/√d&lt;sub&gt;k&lt;/sub&gt;)·kᵀ = (q·kᵀ)/√d&lt;sub&gt;k&lt;/sub&gt;。在 float32 中，每次运算都会舍入到 24 位，而两种顺序在不同的地方舍入，因此最后一两位可能不同。一个 &lt;i&gt;ulp&lt;/i&gt; 就是一个浮点数与下一个浮点数之间的间隔。&lt;/p&gt;&lt;p&gt;&lt;b&gt;A&lt;/b&gt; = (q/√d&lt;sub&gt;k&lt;/sub&gt;)·kᵀ，先缩放查询：attention-is-all-you-need-pytorch（种子文档 003：&lt;tt&gt;q / temperature&lt;/tt&gt;，&lt;tt&gt;temperature = d_k ** 0.5&lt;/tt&gt;）和 PyTorch 的 nn.MultiheadAttention（种子文档 002 和 004；1.13：&lt;tt&gt;q / math.sqrt(head_dim)&lt;/tt&gt;）。&lt;br&gt;&lt;b&gt;B&lt;/b&gt; = (q·kᵀ)/√d&lt;sub&gt;k&lt;/sub&gt;，缩放乘积：教程（种子文档 001：&lt;tt&gt;matmul(Q, K.transpose(-1, -2)) / np.sqrt(d_k)&lt;/tt&gt;）。&lt;/p&gt;&lt;p&gt;这里两者都由追踪记录中的 P.Q 和 P.K 以 float32 计算，使用同一个循环，按相同的顺序（i = 0 … d&lt;sub&gt;k&lt;/sub&gt;−1）对相同的乘积求和，不使用融合乘加，再除以舍入到 float32 的 √d&lt;sub&gt;k&lt;/sub&gt;（%1），这与 torch 处理 Python 或 NumPy 浮点数的方式相同；因此唯一的区别就是除法的位置。真正的 GEMM（PyTorch 的、Eigen 的）按自己的顺序求和，还可能融合运算，这又会改变最后几位。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;d&lt;sub&gt;k&lt;/sub&gt; = %1: √d&lt;sub&gt;k&lt;/sub&gt; = %2 is not a power of two, so each division rounds, and rounding the d&lt;sub&gt;k&lt;/sub&gt; scaled query entries before the sum is not rounding the one sum after it. A score near 0 can show tens of ulps: its terms cancel, so its own ulp is tiny while the terms&apos; rounding errors (a few 1e−8) remain — |Δ| stays that small. The softmax line shows what reaches the attention weights: far below what a student can see.&lt;/p&gt;</source>
        <translation>&lt;p&gt;d&lt;sub&gt;k&lt;/sub&gt; = %1：√d&lt;sub&gt;k&lt;/sub&gt; = %2 不是 2 的幂，所以每次除法都会舍入；在求和之前对 d&lt;sub&gt;k&lt;/sub&gt; 个缩放后的查询元素分别舍入，并不等于在求和之后对那一个和舍入。接近 0 的分数可能显示出几十个 ulp 的差异：它的各项相互抵消，所以它自身的 ulp 很小，而各项的舍入误差（几个 1e−8）依然存在 — |Δ| 仍然只有这么小。softmax 那一行显示的是传到注意力权重上的差异：远远小于学生能察觉的程度。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>A: (q/√dₖ)·kᵀ — query scaled first</source>
        <translation>A：(q/√dₖ)·kᵀ — 先缩放查询</translation>
    </message>
    <message>
        <source>B: (q·kᵀ)/√dₖ — product scaled</source>
        <translation>B：(q·kᵀ)/√dₖ — 缩放乘积</translation>
    </message>
    <message>
        <source>A − B in ulps (%1 of %2 differ)</source>
        <translation>A − B，以 ulp 计（%2 个中有 %1 个不同）</translation>
    </message>
    <message>
        <source>A = %1&lt;br&gt;B = %2&lt;br&gt;A − B = %3 (%4 ulp)</source>
        <translation>A = %1&lt;br&gt;B = %2&lt;br&gt;A − B = %3（%4 ulp）</translation>
    </message>
    <message>
        <source>both orders&apos; bits</source>
        <translation>与两种顺序逐位相同</translation>
    </message>
    <message>
        <source>B&apos;s rounding</source>
        <translation>B 的舍入结果</translation>
    </message>
    <message>
        <source>A&apos;s rounding</source>
        <translation>A 的舍入结果</translation>
    </message>
    <message>
        <source>neither order&apos;s bits</source>
        <translation>与两种顺序都不逐位相同</translation>
    </message>
    <message>
        <source>The trace&apos;s P.scores: %1</source>
        <translation>追踪记录中的 P.scores：%1</translation>
    </message>
    <message>
        <source>%1.scores, as the trace holds it</source>
        <translation>%1.scores，即追踪记录中保存的值</translation>
    </message>
    <message>
        <source>P.scores</source>
        <translation>P.scores</translation>
    </message>
    <message>
        <source>%1 = %2&lt;br&gt;A = %3&lt;br&gt;B = %4 (%5 ulp apart)</source>
        <translation>%1 = %2&lt;br&gt;A = %3&lt;br&gt;B = %4（相差 %5 ulp）</translation>
    </message>
</context>
<context>
    <name>SentenceEdit</name>
    <message>
        <source>List the vocabulary (Alt+/)</source>
        <translation>列出词表（Alt+/）</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>No model yet</source>
        <translation>尚无模型</translation>
    </message>
    <message>
        <source>%1 preset at its initial weights (training failed)</source>
        <translation>%1 预设，使用初始权重（训练失败）</translation>
    </message>
    <message>
        <source>Training the %1 model failed: %2</source>
        <translation>训练 %1 模型失败：%2</translation>
    </message>
    <message>
        <source>Tutorial (d_model 512, 6 layers, 8 heads, %1)</source>
        <translation>教程（d_model 512，6 层，8 个头，%1）</translation>
    </message>
    <message>
        <source>The tutorial&apos;s model and configuration, trained on its two sentences (trained once on first use, then cached)</source>
        <translation>教程的模型和配置，在教程的两个句子上训练（首次使用时训练一次，之后使用缓存）</translation>
    </message>
    <message>
        <source>Small (d_model 32, 2 layers, 4 heads, %1)</source>
        <translation>小型（d_model 32，2 层，4 个头，%1）</translation>
    </message>
    <message>
        <source>A small model that is easy to read: every tensor fits on screen</source>
        <translation>一个易于阅读的小模型：每个张量都能在屏幕上完整显示</translation>
    </message>
    <message>
        <source>Untrained (tutorial size, initial weights)</source>
        <translation>未训练（教程规模，初始权重）</translation>
    </message>
    <message>
        <source>The tutorial&apos;s model before training: compare its noisy attention with the trained one</source>
        <translation>训练前的教程模型：可将其杂乱的注意力与训练后的模型对比</translation>
    </message>
    <message>
        <source>PyTorch nn.Transformer (d_model 32, 2 + 2 layers, 4 heads, %1)</source>
        <translation>PyTorch nn.Transformer（d_model 32，2 + 2 层，4 个头，%1）</translation>
    </message>
    <message>
        <source>PyTorch&apos;s own nn.Transformer (seed 002): packed in-projection with biases, learned LayerNorm, final encoder and decoder norms, masks of 0 / −inf; trained on the tutorial&apos;s sentences</source>
        <translation>PyTorch 自带的 nn.Transformer（种子文档 002）：带偏置的合并输入投影（in_proj）、可学习的 LayerNorm、编码器和解码器末尾的归一化、取值为 0 / −inf 的掩码；在教程的句子上训练</translation>
    </message>
    <message>
        <source>attention-is-all-you-need-pytorch (d_model 32, 2 layers, 4 heads, %1)</source>
        <translation>attention-is-all-you-need-pytorch（d_model 32，2 层，4 个头，%1）</translation>
    </message>
    <message>
        <source>attention-is-all-you-need-pytorch&apos;s Transformer (seed 003): the query scaled before q·kᵀ, LayerNorm after the positional encoding, the output projection sharing the target embedding, label-smoothed loss; trained on the tutorial&apos;s sentences</source>
        <translation>attention-is-all-you-need-pytorch 的 Transformer（种子文档 003）：在 q·kᵀ 之前缩放查询、位置编码之后接 LayerNorm、输出投影与目标嵌入共享权重、使用标签平滑损失；在教程的句子上训练</translation>
    </message>
    <message>
        <source>trained</source>
        <translation>已训练</translation>
    </message>
    <message>
        <source>untrained</source>
        <translation>未训练</translation>
    </message>
    <message>
        <source>training…</source>
        <translation>训练中…</translation>
    </message>
    <message>
        <source>trained in the app</source>
        <translation>在应用中训练</translation>
    </message>
    <message>
        <source>from file</source>
        <translation>来自文件</translation>
    </message>
    <message>
        <source>%1 preset, trained on the tutorial&apos;s sentences (cached in %2)</source>
        <translation>%1 预设，在教程的句子上训练（缓存于 %2）</translation>
    </message>
    <message>
        <source>Untrained model (tutorial size, initial weights)</source>
        <translation>未训练的模型（教程规模，初始权重）</translation>
    </message>
    <message>
        <source>%1 preset at its initial weights (untrained)</source>
        <translation>%1 预设，使用初始权重（未训练）</translation>
    </message>
    <message>
        <source>Could not create the %1 model: %2</source>
        <translation>无法创建 %1 模型：%2</translation>
    </message>
    <message>
        <source>Could not open the weights file %1: it does not exist.</source>
        <translation>无法打开权重文件 %1：文件不存在。</translation>
    </message>
    <message>
        <source>config %1</source>
        <translation>配置 %1</translation>
    </message>
    <message>
        <source>config from the file</source>
        <translation>配置取自文件本身</translation>
    </message>
    <message>
        <source>the tutorial&apos;s config (the file has none)</source>
        <translation>教程的配置（文件中没有配置）</translation>
    </message>
    <message>
        <source>Weights %1 with %2</source>
        <translation>权重 %1，%2</translation>
    </message>
    <message>
        <source>; %1 LayerNorm parameters defaulted to 1/0</source>
        <translation>；%1 个 LayerNorm 参数使用默认值 1/0</translation>
    </message>
    <message>
        <source>Could not open the weights file %1:
%2</source>
        <translation>无法打开权重文件 %1：
%2</translation>
    </message>
    <message>
        <source>config</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>

The file carries no model configuration, so the tutorial&apos;s was assumed. If the model has another size, put its config as &quot;%1.config.json&quot; beside the file.</source>
        <translation>

该文件不含模型配置，因此假定使用教程的配置。如果模型规模不同，请把它的配置保存为“%1.config.json”，放在该文件旁边。</translation>
    </message>
    <message>
        <source>The trained model has no weights.</source>
        <translation>训练好的模型没有权重。</translation>
    </message>
    <message>
        <source>Weights trained in the app (Train panel)</source>
        <translation>在应用中训练的权重（训练面板）</translation>
    </message>
    <message>
        <source>Could not use the trained weights: %1</source>
        <translation>无法使用训练好的权重：%1</translation>
    </message>
    <message>
        <source>The GPU stopped working (%1). Stepformer computes on the CPU now, with the same weights.</source>
        <translation>GPU 已停止工作（%1）。Stepformer 现在改用 CPU 计算，权重不变。</translation>
    </message>
    <message>
        <source>The source sentence is empty.</source>
        <translation>源句子为空。</translation>
    </message>
    <message>
        <source>The target sentence is empty.</source>
        <translation>目标句子为空。</translation>
    </message>
    <message>
        <source>The source sentence is empty: type words such as &quot;ich mochte ein bier&quot;.</source>
        <translation>源句子为空：请输入单词，例如“ich mochte ein bier”。</translation>
    </message>
    <message>
        <source>The target sentence is empty: it starts with &quot;%1&quot;, e.g. &quot;%1 i want a beer .&quot;.</source>
        <translation>目标句子为空：它以“%1”开头，例如“%1 i want a beer .”。</translation>
    </message>
    <message>
        <source>The forward pass failed: %1</source>
        <translation>前向传播失败：%1</translation>
    </message>
    <message>
        <source>No sentence fits this model&apos;s vocabulary: %1</source>
        <translation>没有句子适用于此模型的词表：%1</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>%1 preset, trained on the tutorial&apos;s sentences (not cached: %2)</source>
        <translation>%1 预设，在教程的句子上训练（未缓存：%2）</translation>
    </message>
    <message>
        <source>The trained model could not be cached: %1</source>
        <translation>无法缓存训练好的模型：%1</translation>
    </message>
    <message>
        <source>%1 preset at its initial weights (training cancelled)</source>
        <translation>%1 预设，使用初始权重（训练已取消）</translation>
    </message>
    <message>
        <source>nanoGPT (decoder only, n_embd 32, 2 layers, 4 heads, %1)</source>
        <translation>nanoGPT（仅解码器，n_embd 32，2 层，4 个头，%1）</translation>
    </message>
    <message>
        <source>Karpathy&apos;s nanoGPT: a decoder-only GPT that continues a sentence word by word. Learned positions, pre-norm blocks, a causal mask, GELU, lm_head tied to the token embedding; trained with AdamW on the toy sentences</source>
        <translation>Karpathy 的 nanoGPT：一个仅含解码器的 GPT，逐词续写句子。可学习的位置、前置归一化的块、因果掩码、GELU、与词元嵌入共享权重的 lm_head；在简单的示例句子上用 AdamW 训练</translation>
    </message>
    <message numerus="yes">
        <source>, and %n more parameter(s)</source>
        <translation>
            <numerusform>，另有 %n 个参数</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 holds NaN or infinity: %2.

The model is shown as the file holds it: those entries are magenta in the Gradients view&apos;s weight page (the parameter is marked ⚠ in its list) and everything computed from them is NaN too. Training cannot start from these weights.</source>
        <translation>%1 含有 NaN 或无穷大：%2。

模型按文件中的原样显示：这些元素在“梯度”视图的权重页中以品红色显示（该参数在列表中标有 ⚠），由它们算出的一切也都是 NaN。无法从这些权重开始训练。</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Training:</source>
        <translation>训练：</translation>
    </message>
    <message>
        <source>step %v / %m</source>
        <translation>第 %v / %m 步</translation>
    </message>
    <message>
        <source>Training the model on the tutorial&apos;s two sentences (once; the result is cached)</source>
        <translation>正在教程的两个句子上训练模型（只训练一次，结果会被缓存）</translation>
    </message>
    <message>
        <source>Training finished: now showing the trained model (cached for the next start).</source>
        <translation>训练完成：现在显示的是训练好的模型（已缓存，下次启动时直接使用）。</translation>
    </message>
    <message>
        <source>The numbers on screen are computed on %1. Click to compute on another device (Model › Compute On).</source>
        <translation>屏幕上的数值是在 %1 上计算的。点击可切换到其他设备计算（模型 › 计算设备）。</translation>
    </message>
    <message>
        <source>Step %1/%2 · %3 · %4</source>
        <translation>第 %1/%2 步 · %3 · %4</translation>
    </message>
    <message>
        <source>Training the %1 model on the tutorial&apos;s sentences; the untrained model is shown meanwhile.</source>
        <translation>正在教程的句子上训练 %1 模型；训练期间先显示未训练的模型。</translation>
    </message>
    <message>
        <source>loss %1</source>
        <translation>损失 %1</translation>
    </message>
    <message>
        <source>%5 %1 · %2 layers · %3 heads · %4</source>
        <translation>%5 %1 · %2 层 · %3 个头 · %4</translation>
    </message>
</context>
<context>
    <name>StepDetail</name>
    <message>
        <source>print(tensor) in PyTorch (its own layout and number format):</source>
        <translation>PyTorch 中 print(tensor) 的输出（使用 PyTorch 自己的排版和数字格式）：</translation>
    </message>
    <message>
        <source>No step selected</source>
        <translation>未选择步骤</translation>
    </message>
    <message>
        <source>Seed 004 calls it &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>种子文档 004 称之为 &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Shape %1</source>
        <translation>形状 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;PyTorch:&lt;/b&gt; &lt;code&gt;%1&lt;/code&gt;</source>
        <translation>&lt;b&gt;PyTorch：&lt;/b&gt;&lt;code&gt;%1&lt;/code&gt;</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;background:%1&apos;&gt;&amp;nbsp;-inf&amp;nbsp;&lt;/span&gt; masked: the softmax gives it weight 0</source>
        <translation>&lt;span style=&apos;background:%1&apos;&gt;&amp;nbsp;-inf&amp;nbsp;&lt;/span&gt; 被掩码：softmax 给它的权重为 0</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;background:%1&apos;&gt;&amp;nbsp;nan&amp;nbsp;&lt;/span&gt; every key of the row is masked (softmax of all -inf): PyTorch 1.13 returns nan, and it spreads to everything after</source>
        <translation>&lt;span style=&apos;background:%1&apos;&gt;&amp;nbsp;nan&amp;nbsp;&lt;/span&gt; 该行的所有键都被掩码（对全为 -inf 的一行做 softmax）：PyTorch 1.13 返回 nan，并且会扩散到之后的所有结果</translation>
    </message>
    <message>
        <source>Rows: %1 · columns: %2 · one table per %3</source>
        <translation>行：%1 · 列：%2 · 每个%3一张表</translation>
    </message>
    <message>
        <source>batch element and head</source>
        <translation>批元素和头</translation>
    </message>
    <message>
        <source>batch element</source>
        <translation>批元素</translation>
    </message>
    <message>
        <source>batch %1 · head %2</source>
        <translation>批 %1 · 头 %2</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>批 %1</translation>
    </message>
    <message>
        <source>pos</source>
        <translation>位置</translation>
    </message>
</context>
<context>
    <name>StepModel</name>
    <message>
        <source>trg_word_emb</source>
        <translation>trg_word_emb</translation>
    </message>
    <message>
        <source>src_word_emb</source>
        <translation>src_word_emb</translation>
    </message>
    <message>
        <source>pos_table (float64)</source>
        <translation>pos_table (float64)</translation>
    </message>
    <message>
        <source>+ position_enc, dropout</source>
        <translation>+ position_enc, dropout</translation>
    </message>
    <message>
        <source>src_mask (1 = keep)</source>
        <translation>src_mask（1 = 保留）</translation>
    </message>
    <message>
        <source>trg_mask (1 = keep)</source>
        <translation>trg_mask（1 = 保留）</translation>
    </message>
    <message>
        <source>Q = w_qs(q) (no bias)</source>
        <translation>Q = w_qs(q)（无偏置）</translation>
    </message>
    <message>
        <source>K = w_ks(k) (no bias)</source>
        <translation>K = w_ks(k)（无偏置）</translation>
    </message>
    <message>
        <source>V = w_vs(v) (no bias)</source>
        <translation>V = w_vs(v)（无偏置）</translation>
    </message>
    <message>
        <source>q / temperature (temperature = √d_k)</source>
        <translation>q / temperature（temperature = √d_k）</translation>
    </message>
    <message>
        <source>scores = q_scaled·kᵀ (no second scale)</source>
        <translation>分数 = q_scaled·kᵀ（不再二次缩放）</translation>
    </message>
    <message>
        <source>masked_fill(mask == 0, −1e9)</source>
        <translation>masked_fill(mask == 0, −1e9)</translation>
    </message>
    <message>
        <source>fc (no bias)</source>
        <translation>fc（无偏置）</translation>
    </message>
    <message>
        <source>dropout(%1) + residual</source>
        <translation>dropout(%1) + 残差</translation>
    </message>
    <message>
        <source>layer_norm (before layer 0)</source>
        <translation>layer_norm（第 0 层之前）</translation>
    </message>
    <message>
        <source>layer_norm (post-norm, ε 1e-6)</source>
        <translation>layer_norm（后置归一化，ε 1e-6）</translation>
    </message>
    <message>
        <source>w_1 (+ bias)</source>
        <translation>w_1（+ 偏置）</translation>
    </message>
    <message>
        <source>ReLU</source>
        <translation>ReLU</translation>
    </message>
    <message>
        <source>w_2 (+ bias)</source>
        <translation>w_2（+ 偏置）</translation>
    </message>
    <message>
        <source>trg_word_prj (logits, no bias)</source>
        <translation>trg_word_prj（logits，无偏置）</translation>
    </message>
    <message>
        <source>src: the source sentence&apos;s token ids, padded to src_len with the pad token (key_padding_mask is True there)</source>
        <translation>src：源句子的词元 id，用填充词元补齐到 src_len（这些位置的 key_padding_mask 为 True）</translation>
    </message>
    <message>
        <source>tgt_input: the target sentence starting with the start symbol, padded to tgt_len; tgt_mask keeps each position from the later ones</source>
        <translation>tgt_input：以起始符号开头的目标句子，补齐到 tgt_len；tgt_mask 使每个位置看不到其后的位置</translation>
    </message>
    <message>
        <source>src_seq: the source sentence&apos;s token ids, padded with pad id 0 (src_mask is 0 there)</source>
        <translation>src_seq：源句子的词元 id，用填充 id 0 补齐（这些位置的 src_mask 为 0）</translation>
    </message>
    <message>
        <source>trg_seq: the target sentence starting with the start symbol, padded with pad id 0; trg_mask keeps (1) the earlier, non-pad positions</source>
        <translation>trg_seq：以起始符号开头的目标句子，用填充 id 0 补齐；trg_mask 保留（置 1）当前及之前的非填充位置</translation>
    </message>
    <message>
        <source>enc_inputs: the source sentence, padded to src_len with the pad token</source>
        <translation>enc_inputs：源句子，用填充词元补齐到 src_len</translation>
    </message>
    <message>
        <source>dec_inputs: the target sentence starting with the start symbol, padded to tgt_len</source>
        <translation>dec_inputs：以起始符号开头的目标句子，补齐到 tgt_len</translation>
    </message>
    <message>
        <source>tgt (the given input)</source>
        <translation>tgt（给定的输入）</translation>
    </message>
    <message>
        <source>src (the given input)</source>
        <translation>src（给定的输入）</translation>
    </message>
    <message>
        <source>tgt_tok_emb (× √d_model)</source>
        <translation>tgt_tok_emb（× √d_model）</translation>
    </message>
    <message>
        <source>src_tok_emb (× √d_model)</source>
        <translation>src_tok_emb（× √d_model）</translation>
    </message>
    <message>
        <source>positional_encoding table</source>
        <translation>positional_encoding 表</translation>
    </message>
    <message>
        <source>+ positional_encoding</source>
        <translation>+ positional_encoding</translation>
    </message>
    <message>
        <source>Q (in_proj: q rows + bias)</source>
        <translation>Q（in_proj：q 对应的行 + 偏置）</translation>
    </message>
    <message>
        <source>K (in_proj: k rows + bias)</source>
        <translation>K（in_proj：k 对应的行 + 偏置）</translation>
    </message>
    <message>
        <source>V (in_proj: v rows + bias)</source>
        <translation>V（in_proj：v 对应的行 + 偏置）</translation>
    </message>
    <message>
        <source>scores = q·kᵀ/√head_dim</source>
        <translation>分数 = q·kᵀ/√head_dim</translation>
    </message>
    <message>
        <source>mask (additive: 0 / −∞)</source>
        <translation>掩码（加性：0 / −∞）</translation>
    </message>
    <message>
        <source>scores + mask</source>
        <translation>分数 + 掩码</translation>
    </message>
    <message>
        <source>softmax (attn weights)</source>
        <translation>softmax（注意力权重）</translation>
    </message>
    <message>
        <source>out_proj (+ bias)</source>
        <translation>out_proj（+ 偏置）</translation>
    </message>
    <message>
        <source>%1 (+ residual)</source>
        <translation>%1（+ 残差）</translation>
    </message>
    <message>
        <source>decoder.norm (LayerNorm)</source>
        <translation>decoder.norm（LayerNorm）</translation>
    </message>
    <message>
        <source>encoder.norm (LayerNorm)</source>
        <translation>encoder.norm（LayerNorm）</translation>
    </message>
    <message>
        <source>%1 (LayerNorm)</source>
        <translation>%1（LayerNorm）</translation>
    </message>
    <message>
        <source>linear1 (+ bias)</source>
        <translation>linear1（+ 偏置）</translation>
    </message>
    <message>
        <source>activation (ReLU)</source>
        <translation>activation（ReLU）</translation>
    </message>
    <message>
        <source>activation (GELU)</source>
        <translation>activation（GELU）</translation>
    </message>
    <message>
        <source>linear2 (+ bias)</source>
        <translation>linear2（+ 偏置）</translation>
    </message>
    <message>
        <source>generator (logits)</source>
        <translation>generator（logits）</translation>
    </message>
    <message>
        <source>Self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>Masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
    <message>
        <source>Encoder-decoder attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>Feed-forward</source>
        <translation>前馈网络</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>Projection</source>
        <translation>投影</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>%1 layer %2</source>
        <translation>%1第 %2 层</translation>
    </message>
    <message>
        <source>This model&apos;s convention: 1 = keep (may attend), 0 = masked — the opposite of the tutorial&apos;s 1 = masked</source>
        <translation>此模型的约定：1 = 保留（可以关注），0 = 被掩码 — 与教程中 1 = 被掩码的约定正好相反</translation>
    </message>
    <message>
        <source>The query divided by temperature = √d_k before q·kᵀ (the project&apos;s rounding)</source>
        <translation>在计算 q·kᵀ 之前先将查询除以 temperature = √d_k（该项目的舍入方式）</translation>
    </message>
    <message>
        <source>Cross-entropy against a label-smoothed target, summed over the non-pad targets</source>
        <translation>与经过标签平滑的目标计算交叉熵，并对所有非填充目标求和</translation>
    </message>
    <message>
        <source>nn.Transformer&apos;s final LayerNorm over the last layer&apos;s output (%1.norm)</source>
        <translation>nn.Transformer 对最后一层输出做的最终 LayerNorm（%1.norm）</translation>
    </message>
    <message>
        <source>The tensor given to the layer, shaped as PyTorch takes it (shown batch first)</source>
        <translation>传给该层的张量，形状与 PyTorch 接收的一致（显示时批维度在前）</translation>
    </message>
    <message>
        <source>Additive mask, PyTorch&apos;s convention: 0 = may attend, −∞ = ignored; attn_mask and key_padding_mask (True = ignore) merged, added to the scores</source>
        <translation>加性掩码，采用 PyTorch 的约定：0 = 可以关注，−∞ = 被忽略；attn_mask 与 key_padding_mask（True = 忽略）合并后加到注意力分数上</translation>
    </message>
    <message>
        <source>GELU(x) = x · Φ(x) = x/2 · (1 + erf(x/√2)), PyTorch&apos;s exact GELU</source>
        <translation>GELU(x) = x · Φ(x) = x/2 · (1 + erf(x/√2))，PyTorch 的精确 GELU</translation>
    </message>
    <message>
        <source>Embedding (src_emb)</source>
        <translation>嵌入（src_emb）</translation>
    </message>
    <message>
        <source>Embedding (tgt_emb)</source>
        <translation>嵌入（tgt_emb）</translation>
    </message>
    <message>
        <source>Enc-dec pad mask</source>
        <translation>编码器-解码器填充掩码</translation>
    </message>
    <message>
        <source>Embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>PE table (pe)</source>
        <translation>位置编码表（pe）</translation>
    </message>
    <message>
        <source>+ positional encoding</source>
        <translation>+ 位置编码</translation>
    </message>
    <message>
        <source>Pad mask</source>
        <translation>填充掩码</translation>
    </message>
    <message>
        <source>Subsequence mask</source>
        <translation>后续掩码</translation>
    </message>
    <message>
        <source>Combined mask</source>
        <translation>组合掩码</translation>
    </message>
    <message>
        <source>Q (queries)</source>
        <translation>Q（查询）</translation>
    </message>
    <message>
        <source>K (keys)</source>
        <translation>K（键）</translation>
    </message>
    <message>
        <source>V (values)</source>
        <translation>V（值）</translation>
    </message>
    <message>
        <source>q / √d_k (scaled query)</source>
        <translation>q / √d_k（缩放后的查询）</translation>
    </message>
    <message>
        <source>scores = QKᵀ/√d_k</source>
        <translation>注意力分数 = QKᵀ/√d_k</translation>
    </message>
    <message>
        <source>masked scores</source>
        <translation>掩码后的分数</translation>
    </message>
    <message>
        <source>softmax (attention)</source>
        <translation>softmax（注意力）</translation>
    </message>
    <message>
        <source>context = attn·V</source>
        <translation>上下文 = attn·V</translation>
    </message>
    <message>
        <source>output projection (fc)</source>
        <translation>输出投影（fc）</translation>
    </message>
    <message>
        <source>Add (+ residual)</source>
        <translation>相加（+ 残差）</translation>
    </message>
    <message>
        <source>Add &amp; Norm</source>
        <translation>Add &amp; Norm</translation>
    </message>
    <message>
        <source>FFN hidden (fc[0])</source>
        <translation>FFN 隐藏层（fc[0]）</translation>
    </message>
    <message>
        <source>FFN output (fc[2])</source>
        <translation>FFN 输出（fc[2]）</translation>
    </message>
    <message>
        <source>logits</source>
        <translation>logits</translation>
    </message>
    <message>
        <source>probabilities → tokens</source>
        <translation>概率 → 词元</translation>
    </message>
    <message>
        <source>loss per token (label-smoothed, ε %1)</source>
        <translation>每个词元的损失（标签平滑，ε %1）</translation>
    </message>
    <message>
        <source>loss per token</source>
        <translation>每个词元的损失</translation>
    </message>
    <message>
        <source>loss (summed)</source>
        <translation>损失（求和）</translation>
    </message>
    <message>
        <source>loss (mean)</source>
        <translation>损失（平均）</translation>
    </message>
    <message>
        <source>gradient</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>GELU</source>
        <translation>GELU</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>源句子：%1</translation>
    </message>
    <message>
        <source>Target: %1</source>
        <translation>目标句子：%1</translation>
    </message>
    <message>
        <source>%1 — click to jump to its first step</source>
        <translation>%1 — 点击跳转到其第一步</translation>
    </message>
    <message>
        <source>Forward pass</source>
        <translation>前向传播</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder masked self-attention</source>
        <translation>解码器掩码自注意力</translation>
    </message>
    <message>
        <source>decoder–encoder attention</source>
        <translation>编码器-解码器注意力</translation>
    </message>
    <message>
        <source>feed-forward network</source>
        <translation>前馈网络</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <comment>a block and its module name</comment>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Self-attention (slf_attn)</source>
        <translation>自注意力（slf_attn）</translation>
    </message>
    <message>
        <source>Masked self-attention (slf_attn)</source>
        <translation>掩码自注意力（slf_attn）</translation>
    </message>
    <message>
        <source>Encoder-decoder attention (enc_attn)</source>
        <translation>编码器-解码器注意力（enc_attn）</translation>
    </message>
    <message>
        <source>Feed-forward (pos_ffn: w_1, w_2)</source>
        <translation>前馈网络（pos_ffn: w_1, w_2）</translation>
    </message>
    <message>
        <source>Projection (trg_word_prj)</source>
        <translation>输出投影（trg_word_prj）</translation>
    </message>
    <message>
        <source>Self-attention (self_attn)</source>
        <translation>自注意力（self_attn）</translation>
    </message>
    <message>
        <source>Masked self-attention (self_attn)</source>
        <translation>掩码自注意力（self_attn）</translation>
    </message>
    <message>
        <source>Cross-attention (multihead_attn)</source>
        <translation>交叉注意力（multihead_attn）</translation>
    </message>
    <message>
        <source>Feed-forward (linear1, linear2)</source>
        <translation>前馈网络（linear1, linear2）</translation>
    </message>
    <message>
        <source>Final norm (decoder.norm)</source>
        <translation>最终归一化（decoder.norm）</translation>
    </message>
    <message>
        <source>Final norm (encoder.norm)</source>
        <translation>最终归一化（encoder.norm）</translation>
    </message>
    <message>
        <source>Generator (generator)</source>
        <translation>生成器（generator）</translation>
    </message>
    <message>
        <source>Causal self-attention (attn)</source>
        <translation>因果自注意力（attn）</translation>
    </message>
    <message>
        <source>MLP (mlp: c_fc, GELU, c_proj)</source>
        <translation>MLP（mlp：c_fc、GELU、c_proj）</translation>
    </message>
    <message>
        <source>Final norm (ln_f)</source>
        <translation>最终归一化（ln_f）</translation>
    </message>
    <message>
        <source>Projection (lm_head, tied to wte)</source>
        <translation>输出投影（lm_head，与 wte 共享权重）</translation>
    </message>
    <message>
        <source>wte (token embedding)</source>
        <translation>wte（词元嵌入）</translation>
    </message>
    <message>
        <source>wpe (learned positions)</source>
        <translation>wpe（可学习的位置）</translation>
    </message>
    <message>
        <source>drop(tok_emb + pos_emb)</source>
        <translation>drop(tok_emb + pos_emb)</translation>
    </message>
    <message>
        <source>bias (causal mask, 1 = keep)</source>
        <translation>bias（因果掩码，1 = 保留）</translation>
    </message>
    <message>
        <source>q (c_attn: q third + bias)</source>
        <translation>q（c_attn：q 对应的三分之一 + 偏置）</translation>
    </message>
    <message>
        <source>q (c_attn: q third)</source>
        <translation>q（c_attn：q 对应的三分之一）</translation>
    </message>
    <message>
        <source>k (c_attn: k third + bias)</source>
        <translation>k（c_attn：k 对应的三分之一 + 偏置）</translation>
    </message>
    <message>
        <source>k (c_attn: k third)</source>
        <translation>k（c_attn：k 对应的三分之一）</translation>
    </message>
    <message>
        <source>v (c_attn: v third + bias)</source>
        <translation>v（c_attn：v 对应的三分之一 + 偏置）</translation>
    </message>
    <message>
        <source>v (c_attn: v third)</source>
        <translation>v（c_attn：v 对应的三分之一）</translation>
    </message>
    <message>
        <source>att = (q @ kᵀ) · 1/√hs</source>
        <translation>att = (q @ kᵀ) · 1/√hs</translation>
    </message>
    <message>
        <source>masked_fill(bias == 0, −inf)</source>
        <translation>masked_fill(bias == 0, −inf)</translation>
    </message>
    <message>
        <source>att = softmax (attn_dropout)</source>
        <translation>att = softmax（attn_dropout）</translation>
    </message>
    <message>
        <source>y = att @ v</source>
        <translation>y = att @ v</translation>
    </message>
    <message>
        <source>c_proj (+ bias)</source>
        <translation>c_proj（+ 偏置）</translation>
    </message>
    <message>
        <source>c_proj (no bias)</source>
        <translation>c_proj（无偏置）</translation>
    </message>
    <message>
        <source>resid2: x + mlp(ln_2(x))</source>
        <translation>resid2: x + mlp(ln_2(x))</translation>
    </message>
    <message>
        <source>resid1: x + attn(ln_1(x))</source>
        <translation>resid1: x + attn(ln_1(x))</translation>
    </message>
    <message>
        <source>ln_f (final LayerNorm)</source>
        <translation>ln_f（最终的 LayerNorm）</translation>
    </message>
    <message>
        <source>ln_2 (LayerNorm before mlp)</source>
        <translation>ln_2（mlp 之前的 LayerNorm）</translation>
    </message>
    <message>
        <source>ln_1 (LayerNorm before attn)</source>
        <translation>ln_1（attn 之前的 LayerNorm）</translation>
    </message>
    <message>
        <source>mlp.c_fc (+ bias)</source>
        <translation>mlp.c_fc（+ 偏置）</translation>
    </message>
    <message>
        <source>mlp.c_fc (no bias)</source>
        <translation>mlp.c_fc（无偏置）</translation>
    </message>
    <message>
        <source>mlp.gelu (exact GELU)</source>
        <translation>mlp.gelu（精确 GELU）</translation>
    </message>
    <message>
        <source>mlp.c_proj (+ bias)</source>
        <translation>mlp.c_proj（+ 偏置）</translation>
    </message>
    <message>
        <source>mlp.c_proj (no bias)</source>
        <translation>mlp.c_proj（无偏置）</translation>
    </message>
    <message>
        <source>lm_head (logits, weight = wte)</source>
        <translation>lm_head（logits，权重 = wte）</translation>
    </message>
    <message>
        <source>nanoGPT reads no source sentence: it is decoder-only</source>
        <translation>nanoGPT 不读取源句子：它只有解码器</translation>
    </message>
    <message>
        <source>idx: the sentence&apos;s token ids, starting with the start word; the model predicts each next word</source>
        <translation>idx：句子的词元 id，以起始词开头；模型预测每个位置的下一个词</translation>
    </message>
    <message>
        <source>Text: %1</source>
        <translation>文本：%1</translation>
    </message>
</context>
<context>
    <name>StepNavigator</name>
    <message>
        <source>&amp;First Step</source>
        <translation>第一步(&amp;F)</translation>
    </message>
    <message>
        <source>Go to the first step of the forward pass</source>
        <translation>跳到前向传播的第一步</translation>
    </message>
    <message>
        <source>&amp;Previous Step</source>
        <translation>上一步(&amp;P)</translation>
    </message>
    <message>
        <source>Go to the previous step</source>
        <translation>跳到上一步</translation>
    </message>
    <message>
        <source>P&amp;lay</source>
        <translation>播放(&amp;L)</translation>
    </message>
    <message>
        <source>Play through the steps automatically / pause</source>
        <translation>自动逐步播放 / 暂停</translation>
    </message>
    <message>
        <source>&amp;Next Step</source>
        <translation>下一步(&amp;N)</translation>
    </message>
    <message>
        <source>Go to the next step</source>
        <translation>跳到下一步</translation>
    </message>
    <message>
        <source>&amp;Last Step</source>
        <translation>最后一步(&amp;L)</translation>
    </message>
    <message>
        <source>Go to the last step (the predicted tokens and the loss)</source>
        <translation>跳到最后一步（预测的词元和损失）</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Play speed (steps per second)</source>
        <translation>播放速度（每秒步数）</translation>
    </message>
    <message>
        <source>Speed </source>
        <translation>速度 </translation>
    </message>
    <message>
        <source>Current step / number of steps in the forward pass</source>
        <translation>当前步骤 / 前向传播的总步数</translation>
    </message>
    <message>
        <source>The forward pass, step by step. Click a step to see its tensor.</source>
        <translation>前向传播，逐步展示。点击某一步可查看其张量。</translation>
    </message>
    <message>
        <source> %1/s</source>
        <translation> %1/秒</translation>
    </message>
    <message>
        <source>Pa&amp;use</source>
        <translation>暂停(&amp;U)</translation>
    </message>
    <message>
        <source>Step %1/%2</source>
        <translation>第 %1/%2 步</translation>
    </message>
    <message>
        <source>No steps</source>
        <translation>没有步骤</translation>
    </message>
</context>
<context>
    <name>StepPanels</name>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>  · head %1</source>
        <translation>  · 头 %1</translation>
    </message>
    <message>
        <source>src_mask (1 = keep)</source>
        <translation>src_mask（1 = 保留）</translation>
    </message>
    <message>
        <source>&lt;b&gt;get_pad_mask(src_seq, pad_idx)&lt;/b&gt; = (seq != pad_idx).unsqueeze(-2): &lt;b&gt;1 = keep&lt;/b&gt; (a real word), &lt;b&gt;0 = masked&lt;/b&gt; (padding) — this project&apos;s convention, the opposite of the tutorial&apos;s 1 = masked. One row, broadcast over every query; slf_attn and enc_attn both read it.</source>
        <translation>&lt;b&gt;get_pad_mask(src_seq, pad_idx)&lt;/b&gt; = (seq != pad_idx).unsqueeze(-2)：&lt;b&gt;1 = 保留&lt;/b&gt;（真实的词），&lt;b&gt;0 = 被掩码&lt;/b&gt;（填充）— 这是该项目的约定，与教程的 1 = 被掩码正好相反。只有一行，广播到每个查询；slf_attn 和 enc_attn 都读取它。</translation>
    </message>
    <message>
        <source>trg_mask (1 = keep)</source>
        <translation>trg_mask（1 = 保留）</translation>
    </message>
    <message>
        <source>&lt;b&gt;get_pad_mask(trg_seq, pad_idx) &amp;amp; get_subsequent_mask(trg_seq)&lt;/b&gt;: 1 - triu(ones, 1) keeps the positions up to the query&apos;s own; &lt;b&gt;1 = keep&lt;/b&gt;, &lt;b&gt;0 = masked&lt;/b&gt; (padding or a later word), the opposite of the tutorial&apos;s 1 = masked.</source>
        <translation>&lt;b&gt;get_pad_mask(trg_seq, pad_idx) &amp;amp; get_subsequent_mask(trg_seq)&lt;/b&gt;：1 - triu(ones, 1) 保留截至查询自身位置的各个位置；&lt;b&gt;1 = 保留&lt;/b&gt;，&lt;b&gt;0 = 被掩码&lt;/b&gt;（填充或更靠后的词），与教程的 1 = 被掩码正好相反。</translation>
    </message>
    <message>
        <source>input: %1</source>
        <translation>输入：%1</translation>
    </message>
    <message>
        <source>× w_%1sᵀ
(no bias)
→ head %2</source>
        <translation>× w_%1sᵀ
（无偏置）
→ 头 %2</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; = w_%2s(%2).view(sz_b, len, n_head, d_%3).transpose(1, 2): nn.Linear(d_model, n_head·d_%3, bias=False), cut into n_head = %n heads of d_%3 = %4 columns; shown: head %5.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = w_%2s(%2).view(sz_b, len, n_head, d_%3).transpose(1, 2)：nn.Linear(d_model, n_head·d_%3, bias=False)，切分为 n_head = %n 个头，每个头 d_%3 = %4 列；当前显示：头 %5。</numerusform>
        </translation>
    </message>
    <message>
        <source> In &lt;tt&gt;enc_attn&lt;/tt&gt; the query comes from the decoder.</source>
        <translation>在 &lt;tt&gt;enc_attn&lt;/tt&gt; 中，查询来自解码器。</translation>
    </message>
    <message>
        <source> In &lt;tt&gt;enc_attn&lt;/tt&gt; keys and values are the encoder&apos;s output.</source>
        <translation>在 &lt;tt&gt;enc_attn&lt;/tt&gt; 中，键和值就是编码器的输出。</translation>
    </message>
    <message>
        <source>/ temperature
(√d_k = %1)</source>
        <translation>/ 温度
(√d_k = %1)</translation>
    </message>
    <message>
        <source>q / temperature</source>
        <translation>q / 温度</translation>
    </message>
    <message>
        <source>&lt;b&gt;q / self.temperature&lt;/b&gt;, temperature = d_k ** 0.5 = √%1 = %2: ScaledDotProductAttention scales the &lt;i&gt;query&lt;/i&gt; before the product, not the scores after it. The same maths as (q·kᵀ)/√d_k, rounded differently in the last bits.</source>
        <translation>&lt;b&gt;q / self.temperature&lt;/b&gt;，温度 = d_k ** 0.5 = √%1 = %2：ScaledDotProductAttention 在相乘之前缩放&lt;i&gt;查询&lt;/i&gt;，而不是在相乘之后缩放分数。数学上与 (q·kᵀ)/√d_k 相同，只是最后几位的舍入不同。</translation>
    </message>
    <message>
        <source>scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>&lt;b&gt;attn = torch.matmul(q / self.temperature, k.transpose(2, 3))&lt;/b&gt;: the query was already divided by √d_k = %1, so no second scale follows; each row is a query, each column a key.</source>
        <translation>&lt;b&gt;attn = torch.matmul(q / self.temperature, k.transpose(2, 3))&lt;/b&gt;：查询已经除以 √d_k = %1，因此之后不再缩放；每一行是一个查询，每一列是一个键。</translation>
    </message>
    <message>
        <source>masked_fill
(mask == 0,
−1e9)</source>
        <translation>masked_fill
(掩码 == 0,
−1e9)</translation>
    </message>
    <message>
        <source>mask (1 = keep)</source>
        <translation>掩码（1 = 保留）</translation>
    </message>
    <message>
        <source>masked scores</source>
        <translation>掩码后的分数</translation>
    </message>
    <message>
        <source>&lt;b&gt;attn.masked_fill(mask == 0, -1e9)&lt;/b&gt;: where the mask is &lt;b&gt;0&lt;/b&gt; (this project&apos;s masks are 1 = keep) the score becomes −1e9, so the softmax gives that key (almost exactly) no weight.</source>
        <translation>&lt;b&gt;attn.masked_fill(mask == 0, -1e9)&lt;/b&gt;：在掩码为 &lt;b&gt;0&lt;/b&gt; 的位置（该项目的掩码是 1 = 保留），分数变为 −1e9，因此 softmax（几乎完全）不给该键任何权重。</translation>
    </message>
    <message>
        <source>context, all heads concatenated</source>
        <translation>上下文向量，所有头拼接</translation>
    </message>
    <message>
        <source>× fc.weightᵀ
(no bias)
=</source>
        <translation>× fc.weightᵀ
（无偏置）
=</translation>
    </message>
    <message>
        <source>fc (the attention&apos;s output)</source>
        <translation>fc（注意力的输出）</translation>
    </message>
    <message>
        <source>&lt;b&gt;fc&lt;/b&gt; = nn.Linear(n_head·d_v = %1, d_model = %2, bias=False): the heads side by side mixed back to d_model; dropout follows (in training).</source>
        <translation>&lt;b&gt;fc&lt;/b&gt; = nn.Linear(n_head·d_v = %1, d_model = %2, bias=False)：各头并排拼接，再混合回 d_model；随后做 dropout（训练时）。</translation>
    </message>
    <message>
        <source>sub-layer output: %1</source>
        <translation>子层输出：%1</translation>
    </message>
    <message>
        <source>residual: %1</source>
        <translation>残差：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = dropout(%1(x)); x += residual&lt;/b&gt;: dropout comes &lt;i&gt;before&lt;/i&gt; the add (a no-op outside training); the LayerNorm follows (post-norm).</source>
        <translation>&lt;b&gt;x = dropout(%1(x)); x += residual&lt;/b&gt;：dropout 在相加&lt;i&gt;之前&lt;/i&gt;（训练之外不起作用）；随后是 LayerNorm（后置归一化 post-norm）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1.layer_norm&lt;/b&gt; = nn.LayerNorm(d_model, eps=1e-6): applied once to the embeddings plus positions, &lt;i&gt;before&lt;/i&gt; the first layer (nn.Transformer and the tutorial have none here); each row to mean 0, variance 1, then · γ + β (learned).</source>
        <translation>&lt;b&gt;%1.layer_norm&lt;/b&gt; = nn.LayerNorm(d_model, eps=1e-6)：在第一层&lt;i&gt;之前&lt;/i&gt;，对嵌入加位置编码的结果做一次（nn.Transformer 和教程在这里都没有）；每一行归一化为均值 0、方差 1，再 · γ + β（可学习）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;self.layer_norm(x)&lt;/b&gt;, nn.LayerNorm(d_model, eps=1e-6), after the residual add (post-norm): each row to mean 0, variance 1, then · γ + β (learned).</source>
        <translation>&lt;b&gt;self.layer_norm(x)&lt;/b&gt;，即 nn.LayerNorm(d_model, eps=1e-6)，位于残差相加之后（后置归一化 post-norm）：每一行归一化为均值 0、方差 1，再 · γ + β（可学习）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;w_1&lt;/b&gt; = nn.Linear(d_model, d_inner) with bias: every position widened from %1 to %2.</source>
        <translation>&lt;b&gt;w_1&lt;/b&gt; = nn.Linear(d_model, d_inner)，带偏置：每个位置从 %1 维扩展到 %2 维。</translation>
    </message>
    <message>
        <source>&lt;b&gt;w_2&lt;/b&gt; = nn.Linear(d_inner, d_model) with bias: back from %1 to %2 (dropout follows).</source>
        <translation>&lt;b&gt;w_2&lt;/b&gt; = nn.Linear(d_inner, d_model)，带偏置：从 %1 维变回 %2 维（随后做 dropout）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;(seq): each token id picks its row of nn.Embedding(n_vocab, d_model, padding_idx=0) — the pad row gets no gradient. </source>
        <translation>&lt;b&gt;%1&lt;/b&gt;(seq)：每个词元 id 取出 nn.Embedding(n_vocab, d_model, padding_idx=0) 中对应的一行 — 填充行不接收梯度。</translation>
    </message>
    <message>
        <source>scale_emb_or_prj = &apos;emb&apos;: then × d_model ** 0.5 = %1.</source>
        <translation>scale_emb_or_prj = &apos;emb&apos;：随后 × d_model ** 0.5 = %1。</translation>
    </message>
    <message>
        <source>No × √d_model here (scale_emb_or_prj is not &apos;emb&apos; with the weights shared).</source>
        <translation>此处不乘 √d_model（只有在权重共享且 scale_emb_or_prj 为 &apos;emb&apos; 时才乘）。</translation>
    </message>
    <message>
        <source>pos_table (float64-made)</source>
        <translation>pos_table（float64 计算）</translation>
    </message>
    <message>
        <source>&lt;b&gt;position_enc.pos_table&lt;/b&gt;: position / 10000&lt;sup&gt;2(j//2)/d&lt;/sup&gt;, sin on even and cos on odd columns, computed by NumPy in float64 and stored as float32 (n_position = %1 rows); a buffer, never trained.</source>
        <translation>&lt;b&gt;position_enc.pos_table&lt;/b&gt;：位置 / 10000&lt;sup&gt;2(j//2)/d&lt;/sup&gt;，偶数列为 sin，奇数列为 cos，由 NumPy 以 float64 计算后存为 float32（n_position = %1 行）；它是一个缓冲区，从不训练。</translation>
    </message>
    <message>
        <source>word embedding</source>
        <translation>词嵌入</translation>
    </message>
    <message>
        <source>embedding + positions</source>
        <translation>嵌入 + 位置</translation>
    </message>
    <message>
        <source>&lt;b&gt;dropout(position_enc(emb))&lt;/b&gt;: pos_table[:, :len] is added, then dropout (training only); a LayerNorm follows before the first layer.</source>
        <translation>&lt;b&gt;dropout(position_enc(emb))&lt;/b&gt;：加上 pos_table[:, :len]，再做 dropout（仅在训练时）；在第一层之前还有一个 LayerNorm。</translation>
    </message>
    <message>
        <source>decoder output: %1</source>
        <translation>解码器输出：%1</translation>
    </message>
    <message>
        <source>× trg_word_prj.weightᵀ
(no bias)</source>
        <translation>× trg_word_prj.weightᵀ
（无偏置）</translation>
    </message>
    <message>
        <source>&lt;b&gt;trg_word_prj&lt;/b&gt; = nn.Linear(d_model, n_trg_vocab, bias=False), its weight &lt;b&gt;shared&lt;/b&gt; with decoder.trg_word_emb (one parameter); scale_emb_or_prj = &apos;prj&apos;: logits × d_model ** −0.5 = %1.</source>
        <translation>&lt;b&gt;trg_word_prj&lt;/b&gt; = nn.Linear(d_model, n_trg_vocab, bias=False)，其权重与 decoder.trg_word_emb &lt;b&gt;共享&lt;/b&gt;（同一个参数）；scale_emb_or_prj = &apos;prj&apos;：logits × d_model ** −0.5 = %1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;trg_word_prj&lt;/b&gt; = nn.Linear(d_model, n_trg_vocab, bias=False), its weight &lt;b&gt;shared&lt;/b&gt; with decoder.trg_word_emb (one parameter).</source>
        <translation>&lt;b&gt;trg_word_prj&lt;/b&gt; = nn.Linear(d_model, n_trg_vocab, bias=False)，其权重与 decoder.trg_word_emb &lt;b&gt;共享&lt;/b&gt;（同一个参数）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;trg_word_prj&lt;/b&gt; = nn.Linear(d_model, n_trg_vocab, bias=False), its own weight (trg_emb_prj_weight_sharing off).</source>
        <translation>&lt;b&gt;trg_word_prj&lt;/b&gt; = nn.Linear(d_model, n_trg_vocab, bias=False)，使用自己的权重（trg_emb_prj_weight_sharing 关闭）。</translation>
    </message>
    <message>
        <source>label-smoothed
cross-entropy
→</source>
        <translation>标签平滑
交叉熵
→</translation>
    </message>
    <message>
        <source>loss per position</source>
        <translation>每个位置的损失</translation>
    </message>
    <message>
        <source>&lt;b&gt;cal_loss&lt;/b&gt;, smoothing on: the one-hot target becomes 1 − ε = 0.9 on the correct word and ε/(n_class − 1) on each other; loss = −Σ target · log_softmax(logits). Pad targets count 0.</source>
        <translation>&lt;b&gt;cal_loss&lt;/b&gt;，开启平滑：独热目标在正确词上变为 1 − ε = 0.9，在其他每个词上为 ε/(n_class − 1)；loss = −Σ 目标 · log_softmax(logits)。目标为填充的位置计为 0。</translation>
    </message>
    <message>
        <source>sum
→</source>
        <translation>求和
→</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>&lt;b&gt;loss = loss.masked_select(non_pad_mask).sum()&lt;/b&gt;: cal_loss &lt;i&gt;sums&lt;/i&gt; over the non-pad targets (the tutorial&apos;s CrossEntropyLoss takes the mean).</source>
        <translation>&lt;b&gt;loss = loss.masked_select(non_pad_mask).sum()&lt;/b&gt;：cal_loss 对非填充目标&lt;i&gt;求和&lt;/i&gt;（教程的 CrossEntropyLoss 取平均）。</translation>
    </message>
    <message>
        <source>%1 (given)</source>
        <translation>%1（给定）</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: the tensor handed to the layer&apos;s forward, shaped as PyTorch takes it (%2); shown batch first, one row per position, d_model = %3 columns.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;：传入该层前向传播的张量，形状与 PyTorch 接收的一致（%2）；显示时批维度在前，每个位置一行，d_model = %3 列。</translation>
    </message>
    <message>
        <source>batch_first=True: [batch, seq, feature]</source>
        <translation>batch_first=True：[批, 序列, 特征]</translation>
    </message>
    <message>
        <source>batch_first=False: [seq, batch, feature]</source>
        <translation>batch_first=False：[序列, 批, 特征]</translation>
    </message>
    <message>
        <source>× in_proj_weight[%1]ᵀ
+ in_proj_bias[%1]
→ head %2</source>
        <translation>× in_proj_weight[%1]ᵀ
+ in_proj_bias[%1]
→ 头 %2</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; = x · W&lt;sub&gt;%2&lt;/sub&gt;ᵀ + b&lt;sub&gt;%2&lt;/sub&gt;: nn.MultiheadAttention keeps W&lt;sub&gt;q&lt;/sub&gt;, W&lt;sub&gt;k&lt;/sub&gt;, W&lt;sub&gt;v&lt;/sub&gt; packed in one &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model]; the %2 part is rows %3 (and &lt;tt&gt;in_proj_bias[%3]&lt;/tt&gt;). The result is cut into nhead = %n heads of head_dim = d_model / nhead = %4 columns; shown: head %5.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = x · W&lt;sub&gt;%2&lt;/sub&gt;ᵀ + b&lt;sub&gt;%2&lt;/sub&gt;：nn.MultiheadAttention 把 W&lt;sub&gt;q&lt;/sub&gt;、W&lt;sub&gt;k&lt;/sub&gt;、W&lt;sub&gt;v&lt;/sub&gt; 打包存放在同一个 &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model] 中；%2 部分是其中的行 %3（以及 &lt;tt&gt;in_proj_bias[%3]&lt;/tt&gt;）。结果被切分为 nhead = %n 个头，每个头 head_dim = d_model / nhead = %4 列；当前显示：头 %5。</numerusform>
        </translation>
    </message>
    <message>
        <source> In &lt;tt&gt;multihead_attn&lt;/tt&gt; the query comes from the decoder.</source>
        <translation>在 &lt;tt&gt;multihead_attn&lt;/tt&gt; 中，查询来自解码器。</translation>
    </message>
    <message>
        <source> In &lt;tt&gt;multihead_attn&lt;/tt&gt; keys and values come from the memory (the encoder&apos;s output).</source>
        <translation>在 &lt;tt&gt;multihead_attn&lt;/tt&gt; 中，键和值来自 memory（编码器的输出）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;scores&lt;/b&gt; = (q / √head_dim) @ kᵀ (head_dim = %1, √head_dim = %2): PyTorch scales q first, then multiplies; each row is a query, each column a key.</source>
        <translation>&lt;b&gt;注意力分数&lt;/b&gt; = (q / √head_dim) @ kᵀ（head_dim = %1，√head_dim = %2）：PyTorch 先缩放 q，再做乘法；每一行是一个查询，每一列是一个键。</translation>
    </message>
    <message>
        <source>mask (additive)</source>
        <translation>掩码（加性）</translation>
    </message>
    <message>
        <source>&lt;b&gt;The mask as added to the scores&lt;/b&gt;, PyTorch&apos;s convention: &lt;b&gt;0&lt;/b&gt; = may attend, &lt;b&gt;−∞&lt;/b&gt; = ignored (hatched). &lt;tt&gt;attn_mask&lt;/tt&gt; (float, or bool turned into 0 / −∞) and &lt;tt&gt;key_padding_mask&lt;/tt&gt; (bool, &lt;b&gt;True = ignore&lt;/b&gt; that key) are merged into this one tensor per head.</source>
        <translation>&lt;b&gt;加到注意力分数上的掩码&lt;/b&gt;，遵循 PyTorch 的约定：&lt;b&gt;0&lt;/b&gt; = 可以关注，&lt;b&gt;−∞&lt;/b&gt; = 被忽略（斜线阴影）。&lt;tt&gt;attn_mask&lt;/tt&gt;（float，或转换为 0 / −∞ 的 bool）和 &lt;tt&gt;key_padding_mask&lt;/tt&gt;（bool，&lt;b&gt;True = 忽略&lt;/b&gt;该键）合并成这一个张量，每个头一份。</translation>
    </message>
    <message>
        <source> Here: the causal tgt_mask (−∞ above the diagonal, as &lt;tt&gt;generate_square_subsequent_mask&lt;/tt&gt; makes it) and the target&apos;s padding.</source>
        <translation>此处：因果的 tgt_mask（对角线以上为 −∞，由 &lt;tt&gt;generate_square_subsequent_mask&lt;/tt&gt; 生成），以及目标句子的填充。</translation>
    </message>
    <message>
        <source> Here: memory_key_padding_mask, the source&apos;s padding.</source>
        <translation>此处：memory_key_padding_mask，即源句子的填充。</translation>
    </message>
    <message>
        <source> Here: src_key_padding_mask, the source&apos;s padding.</source>
        <translation>此处：src_key_padding_mask，即源句子的填充。</translation>
    </message>
    <message>
        <source>mask (0 / −∞)</source>
        <translation>掩码（0 / −∞）</translation>
    </message>
    <message>
        <source>scores + mask</source>
        <translation>分数 + 掩码</translation>
    </message>
    <message>
        <source>&lt;b&gt;scores + attn_mask&lt;/b&gt;: the additive mask is added, so an ignored key&apos;s score becomes &lt;b&gt;−∞&lt;/b&gt; (hatched) and the softmax gives it no weight.</source>
        <translation>&lt;b&gt;注意力分数 + attn_mask&lt;/b&gt;：加上加性掩码后，被忽略的键的分数变为 &lt;b&gt;−∞&lt;/b&gt;（斜线阴影），softmax 不给它任何权重。</translation>
    </message>
    <message>
        <source>softmax
over each
row →</source>
        <translation>对每一行
做 softmax
→</translation>
    </message>
    <message>
        <source>attn weights</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>&lt;b&gt;softmax(scores, dim=−1)&lt;/b&gt;: each row becomes weights that sum to 1; exp(−∞) = 0, so an ignored key gets exactly 0. A row whose every key is −∞ has nothing to normalise: PyTorch 1.13 gives &lt;b&gt;NaN&lt;/b&gt; there.</source>
        <translation>&lt;b&gt;softmax(scores, dim=−1)&lt;/b&gt;：每一行变为和为 1 的权重；exp(−∞) = 0，所以被忽略的键恰好得到 0。如果某一行的所有键都是 −∞，就无从归一化：PyTorch 1.13 在这里给出 &lt;b&gt;NaN&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>attn</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>attn @ v</source>
        <translation>注意力权重 @ v</translation>
    </message>
    <message>
        <source>&lt;b&gt;attn @ v&lt;/b&gt;: each query&apos;s row is the attention-weighted mix of the value rows.</source>
        <translation>&lt;b&gt;注意力权重 @ v&lt;/b&gt;：每个查询所在的行，是各个值行按注意力权重加权混合的结果。</translation>
    </message>
    <message>
        <source>attn @ v, all heads concatenated</source>
        <translation>注意力权重 @ v，所有头拼接</translation>
    </message>
    <message>
        <source>out_proj (the attention&apos;s output)</source>
        <translation>out_proj（注意力的输出）</translation>
    </message>
    <message>
        <source>&lt;b&gt;out_proj&lt;/b&gt; = nn.Linear(d_model, d_model) with bias: the heads side by side (nhead · head_dim = %1 columns) mixed back to d_model = %1.</source>
        <translation>&lt;b&gt;out_proj&lt;/b&gt; = nn.Linear(d_model, d_model)，带偏置：各头并排拼接（nhead · head_dim = %1 列），再混合回 d_model = %1。</translation>
    </message>
    <message>
        <source>x (residual): %1</source>
        <translation>x（残差）：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = x + %1&lt;/b&gt; (norm_first=True): the sub-layer read the normalised x, its output is added to x itself; no norm follows.</source>
        <translation>&lt;b&gt;x = x + %1&lt;/b&gt;（norm_first=True）：子层读取的是归一化后的 x，其输出加到 x 本身上；之后不再做归一化。</translation>
    </message>
    <message>
        <source>&lt;b&gt;x + %1&lt;/b&gt; (norm_first=False): the sub-layer&apos;s output is added to its input; the LayerNorm comes next.</source>
        <translation>&lt;b&gt;x + %1&lt;/b&gt;（norm_first=False）：子层的输出加到它的输入上；接下来是 LayerNorm。</translation>
    </message>
    <message>
        <source>last layer&apos;s output: %1</source>
        <translation>最后一层的输出：%1</translation>
    </message>
    <message>
        <source>LayerNorm
(each row)
· γ + β</source>
        <translation>LayerNorm
（逐行）
· γ + β</translation>
    </message>
    <message>
        <source>each row shifted to mean 0 and scaled to variance 1 (ε = %1), then · weight + bias (learned)</source>
        <translation>每一行平移到均值 0 并缩放到方差 1（ε = %1），再 · 权重 + 偏置（可学习）</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1.norm&lt;/b&gt; = nn.LayerNorm(d_model): nn.Transformer&apos;s final norm after the last layer of the stack; %2.</source>
        <translation>&lt;b&gt;%1.norm&lt;/b&gt; = nn.LayerNorm(d_model)：nn.Transformer 在整个堆叠的最后一层之后所做的最终归一化；%2。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1(x)&lt;/b&gt; (norm_first=True, pre-norm): the sub-layer reads the normalised x; %2. The residual adds the sub-layer&apos;s output to x itself.</source>
        <translation>&lt;b&gt;%1(x)&lt;/b&gt;（norm_first=True，前置归一化 pre-norm）：子层读取归一化后的 x；%2。残差连接把子层的输出加到 x 本身上。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1(x + sublayer(x))&lt;/b&gt; (norm_first=False, post-norm): %2.</source>
        <translation>&lt;b&gt;%1(x + sublayer(x))&lt;/b&gt;（norm_first=False，后置归一化 post-norm）：%2。</translation>
    </message>
    <message>
        <source>&lt;b&gt;linear1&lt;/b&gt; = nn.Linear(d_model, dim_feedforward) with bias: every position widened from %1 to %2 features.</source>
        <translation>&lt;b&gt;linear1&lt;/b&gt; = nn.Linear(d_model, dim_feedforward)，带偏置：每个位置从 %1 个特征扩展到 %2 个特征。</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>激活函数输出</translation>
    </message>
    <message>
        <source>&lt;b&gt;activation = F.relu&lt;/b&gt;: negative numbers become 0, positive ones stay.</source>
        <translation>&lt;b&gt;activation = F.relu&lt;/b&gt;：负数变为 0，正数保持不变。</translation>
    </message>
    <message>
        <source>&lt;b&gt;activation = F.gelu&lt;/b&gt; (activation=&quot;gelu&quot;): x · Φ(x) = x/2 · (1 + erf(x/√2)); large positive numbers pass, large negative ones go to 0, small negative ones dip a little below 0.</source>
        <translation>&lt;b&gt;activation = F.gelu&lt;/b&gt;（activation=&quot;gelu&quot;）：x · Φ(x) = x/2 · (1 + erf(x/√2))；较大的正数基本原样通过，较大的负数趋于 0，较小的负数会略低于 0。</translation>
    </message>
    <message>
        <source>&lt;b&gt;linear2&lt;/b&gt; = nn.Linear(dim_feedforward, d_model) with bias: back from %1 to %2 features (dropout follows in training).</source>
        <translation>&lt;b&gt;linear2&lt;/b&gt; = nn.Linear(dim_feedforward, d_model)，带偏置：从 %1 个特征变回 %2 个特征（训练时随后做 dropout）。</translation>
    </message>
    <message>
        <source>embedding × √d_model</source>
        <translation>嵌入 × √d_model</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;(tokens) = embedding(tokens) · √d_model (√%2 = %3): each token id picks its row of &lt;tt&gt;%1.embedding.weight&lt;/tt&gt;, scaled as the translation tutorial&apos;s TokenEmbedding does.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;(tokens) = embedding(tokens) · √d_model（√%2 = %3）：每个词元 id 取出 &lt;tt&gt;%1.embedding.weight&lt;/tt&gt; 中对应的一行，并像 PyTorch 翻译教程中的 TokenEmbedding 那样缩放。</translation>
    </message>
    <message>
        <source>pos_embedding (fixed)</source>
        <translation>pos_embedding（固定）</translation>
    </message>
    <message>
        <source>&lt;b&gt;positional_encoding.pos_embedding&lt;/b&gt;: sin in even columns, cos in odd ones, pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;; a buffer, recomputed, never trained.</source>
        <translation>&lt;b&gt;positional_encoding.pos_embedding&lt;/b&gt;：偶数列为 sin，奇数列为 cos，pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;；它是一个缓冲区，每次重新计算，从不训练。</translation>
    </message>
    <message>
        <source>token embedding</source>
        <translation>词元嵌入</translation>
    </message>
    <message>
        <source>&lt;b&gt;dropout(token_embedding + pos_embedding[:len])&lt;/b&gt;: the positions are added (dropout in training only); this is what the first layer reads.</source>
        <translation>&lt;b&gt;dropout(token_embedding + pos_embedding[:len])&lt;/b&gt;：加上位置编码（dropout 仅在训练时生效）；这就是第一层读取的输入。</translation>
    </message>
    <message>
        <source>&lt;b&gt;generator&lt;/b&gt; = nn.Linear(d_model, tgt_vocab_size) with bias: one score per target word for every position.</source>
        <translation>&lt;b&gt;generator&lt;/b&gt; = nn.Linear(d_model, tgt_vocab_size)，带偏置：在每个位置为每个目标词给出一个分数。</translation>
    </message>
    <message>
        <source>, then · γ + β (learned)</source>
        <translation>，再 · γ + β（可学习）</translation>
    </message>
    <message>
        <source> (no learned γ/β: a fresh nn.LayerNorm each call is never trained)</source>
        <translation>（没有可学习的 γ/β：每次调用都新建一个 nn.LayerNorm，因此从不被训练）</translation>
    </message>
    <message>
        <source>  (layer %1 %2)</source>
        <translation>  （第 %1 层 %2）</translation>
    </message>
    <message>
        <source>get_subsequent_mask: key position %1 comes after query position %2 (0 = masked)</source>
        <translation>get_subsequent_mask：键位置 %1 在查询位置 %2 之后（0 = 被掩码）</translation>
    </message>
    <message>
        <source>get_pad_mask: the key &apos;%1&apos; at position %2 is padding (0 = masked)</source>
        <translation>get_pad_mask：位置 %2 上的键 &apos;%1&apos; 是填充（0 = 被掩码）</translation>
    </message>
    <message>
        <source>the source key &apos;%1&apos; at position %2 is padding</source>
        <translation>源句子位置 %2 上的键 &apos;%1&apos; 是填充</translation>
    </message>
    <message>
        <source>the key &apos;%1&apos; at position %2 is padding</source>
        <translation>位置 %2 上的键 &apos;%1&apos; 是填充</translation>
    </message>
    <message>
        <source>key position %1 comes after query position %2: a future word</source>
        <translation>键位置 %1 在查询位置 %2 之后：是后面的词</translation>
    </message>
    <message>
        <source>tgt_mask: key position %1 comes after query position %2 (−∞ above the diagonal)</source>
        <translation>tgt_mask：键位置 %1 在查询位置 %2 之后（对角线以上为 −∞）</translation>
    </message>
    <message>
        <source>key_padding_mask is True for the key &apos;%1&apos; at position %2: padding</source>
        <translation>位置 %2 上的键 &apos;%1&apos; 的 key_padding_mask 为 True：填充</translation>
    </message>
    <message>
        <source>attn_mask is −∞ here</source>
        <translation>此处 attn_mask 为 −∞</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>No trace yet.</source>
        <translation>尚无追踪记录。</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not in this trace.</source>
        <translation>&apos;%1&apos; 不在此追踪中。</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is empty.</source>
        <translation>&apos;%1&apos; 为空。</translation>
    </message>
    <message>
        <source>additive mask</source>
        <translation>加性掩码</translation>
    </message>
    <message>
        <source>1 = keep, 0 = masked</source>
        <translation>1 = 保留，0 = 被掩码</translation>
    </message>
    <message>
        <source>1 = masked</source>
        <translation>1 = 被掩码</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>gradient</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>the tensor: %1</source>
        <translation>张量：%1</translation>
    </message>
    <message>
        <source>backward
→</source>
        <translation>反向传播
→</translation>
    </message>
    <message>
        <source>its gradient: ∂loss/∂%1</source>
        <translation>其梯度：∂loss/∂%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;∂loss/∂%1&lt;/b&gt;: for every number of &lt;tt&gt;%2&lt;/tt&gt;, how fast the loss changes when that number changes (computed by the backward pass). Red: increasing it raises the loss; blue: increasing it lowers the loss.</source>
        <translation>&lt;b&gt;∂loss/∂%1&lt;/b&gt;：对 &lt;tt&gt;%2&lt;/tt&gt; 中的每个数，表示该数变化时损失变化得有多快（由反向传播计算）。红色：增大它会使损失升高；蓝色：增大它会使损失降低。</translation>
    </message>
    <message>
        <source>× W_%1ᵀ
→ head %2</source>
        <translation>× W_%1ᵀ
→ 头 %2</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; = W_%1(input).view(batch, −1, n_heads, d_%2).transpose(1, 2): the input times W_%1ᵀ, cut into %n heads of %3 columns; shown: head %4.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; = W_%1(input).view(batch, −1, n_heads, d_%2).transpose(1, 2)：输入乘以 W_%1ᵀ，再切分为 %n 个头，每个头 %3 列；当前显示：头 %4。</numerusform>
        </translation>
    </message>
    <message>
        <source> The queries come from the decoder.</source>
        <translation>查询来自解码器。</translation>
    </message>
    <message>
        <source> Keys and values come from the encoder&apos;s output.</source>
        <translation>键和值来自编码器的输出。</translation>
    </message>
    <message>
        <source>scores = QKᵀ/√d_k</source>
        <translation>分数 = QKᵀ/√d_k</translation>
    </message>
    <message>
        <source>&lt;b&gt;scores&lt;/b&gt; = torch.matmul(Q, K.transpose(−1, −2)) / np.sqrt(d_k) (d_k = %1, √d_k = %2): how well each query (row) matches each key (column).</source>
        <translation>&lt;b&gt;注意力分数&lt;/b&gt; = torch.matmul(Q, K.transpose(−1, −2)) / np.sqrt(d_k)（d_k = %1，√d_k = %2）：每个查询（行）与每个键（列）的匹配程度。</translation>
    </message>
    <message>
        <source>masked_fill_
using</source>
        <translation>masked_fill_
依据</translation>
    </message>
    <message>
        <source>mask: %1</source>
        <translation>掩码：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;scores.masked_fill_(attn_mask, −1e9)&lt;/b&gt;: wherever the mask is 1 the score becomes −1e9 (hatched), so the softmax will give it no weight.</source>
        <translation>&lt;b&gt;scores.masked_fill_(attn_mask, −1e9)&lt;/b&gt;：凡是掩码为 1 的位置，分数都变为 −1e9（斜线阴影），因此 softmax 不会给它任何权重。</translation>
    </message>
    <message>
        <source>&lt;b&gt;attn&lt;/b&gt; = nn.Softmax(dim=−1)(scores): each row becomes weights that sum to 1; the −1e9 cells become exactly 0.</source>
        <translation>&lt;b&gt;注意力权重&lt;/b&gt; = nn.Softmax(dim=−1)(scores)：每一行变为和为 1 的权重；−1e9 的单元格恰好变为 0。</translation>
    </message>
    <message>
        <source>context</source>
        <translation>上下文向量</translation>
    </message>
    <message>
        <source>&lt;b&gt;context&lt;/b&gt; = torch.matmul(attn, V): each query&apos;s row is the attention-weighted mix of the value rows.</source>
        <translation>&lt;b&gt;上下文向量&lt;/b&gt; = torch.matmul(attn, V)：每个查询所在的行，是各个值行按注意力权重加权混合的结果。</translation>
    </message>
    <message>
        <source>fc_out (the block&apos;s output before the residual)</source>
        <translation>fc_out（残差连接之前的块输出）</translation>
    </message>
    <message>
        <source>&lt;b&gt;output&lt;/b&gt; = self.fc(context.transpose(1, 2).reshape(batch, −1, n_heads·d_v)): the heads side by side, mixed back to d_model = %1 columns.</source>
        <translation>&lt;b&gt;输出&lt;/b&gt; = self.fc(context.transpose(1, 2).reshape(batch, −1, n_heads·d_v))：各头并排拼接，再混合回 d_model = %1 列。</translation>
    </message>
    <message>
        <source>input (residual): %1</source>
        <translation>输入（残差）：%1</translation>
    </message>
    <message>
        <source>output + residual</source>
        <translation>输出 + 残差</translation>
    </message>
    <message>
        <source>&lt;b&gt;output + residual&lt;/b&gt;: the feed-forward input is added back to its output.</source>
        <translation>&lt;b&gt;输出 + 残差&lt;/b&gt;：前馈网络的输入被加回到它的输出上。</translation>
    </message>
    <message>
        <source>&lt;b&gt;output + residual&lt;/b&gt;: the block&apos;s input is added back to its output (residual connection), feature by feature.</source>
        <translation>&lt;b&gt;输出 + 残差&lt;/b&gt;：块的输入被逐特征地加回到它的输出上（残差连接）。</translation>
    </message>
    <message>
        <source>LayerNorm
(each row)</source>
        <translation>LayerNorm
（逐行）</translation>
    </message>
    <message>
        <source>out = LayerNorm(output + residual)</source>
        <translation>LayerNorm(输出 + 残差)</translation>
    </message>
    <message>
        <source>&lt;b&gt;nn.LayerNorm(d_model)(output + residual)&lt;/b&gt;: each row to mean 0, variance 1%1. This is the layer&apos;s output.</source>
        <translation>&lt;b&gt;nn.LayerNorm(d_model)(输出 + 残差)&lt;/b&gt;：每一行归一化为均值 0、方差 1%1。这就是该层的输出。</translation>
    </message>
    <message>
        <source>&lt;b&gt;nn.LayerNorm(d_model)(output + residual)&lt;/b&gt;: each row is shifted to mean 0 and scaled to variance 1%1.</source>
        <translation>&lt;b&gt;nn.LayerNorm(d_model)(输出 + 残差)&lt;/b&gt;：每一行平移到均值 0，并缩放到方差 1%1。</translation>
    </message>
    <message>
        <source>hidden (d_ff = %1)</source>
        <translation>隐藏层（d_ff = %1）</translation>
    </message>
    <message>
        <source>&lt;b&gt;fc[0]&lt;/b&gt; = nn.Linear(d_model, d_ff, bias=False): every position is widened from %1 to %2 features.</source>
        <translation>&lt;b&gt;fc[0]&lt;/b&gt; = nn.Linear(d_model, d_ff, bias=False)：每个位置从 %1 个特征扩展到 %2 个特征。</translation>
    </message>
    <message>
        <source>hidden</source>
        <translation>隐藏层</translation>
    </message>
    <message>
        <source>&lt;b&gt;nn.ReLU()&lt;/b&gt;: negative numbers become 0, positive ones stay.</source>
        <translation>&lt;b&gt;nn.ReLU()&lt;/b&gt;：负数变为 0，正数保持不变。</translation>
    </message>
    <message>
        <source>&lt;b&gt;fc[2]&lt;/b&gt; = nn.Linear(d_ff, d_model, bias=False): back from %1 to %2 features.</source>
        <translation>&lt;b&gt;fc[2]&lt;/b&gt; = nn.Linear(d_ff, d_model, bias=False)：从 %1 个特征变回 %2 个特征。</translation>
    </message>
    <message>
        <source>embedding of each token</source>
        <translation>每个词元的嵌入</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;(%2): each token id picks its row of the embedding table (vocabulary × d_model = %3).</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;(%2)：每个词元 id 取出嵌入表中对应的一行（嵌入表大小为 词表 × d_model，d_model = %3）。</translation>
    </message>
    <message>
        <source>positional encoding table PE</source>
        <translation>位置编码表 PE</translation>
    </message>
    <message>
        <source>PE(pos, 2i) = sin(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;),  PE(pos, 2i+1) = cos(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;): one row per position.</source>
        <translation>PE(pos, 2i) = sin(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;),  PE(pos, 2i+1) = cos(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;)：每个位置一行。</translation>
    </message>
    <message>
        <source>embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>PE (positions)</source>
        <translation>PE（位置）</translation>
    </message>
    <message>
        <source>embedding + PE</source>
        <translation>嵌入 + PE</translation>
    </message>
    <message>
        <source>&lt;b&gt;x + self.pe[:x.size(0), :]&lt;/b&gt;: the position table is added to the embeddings (then dropout, in training only).</source>
        <translation>&lt;b&gt;x + self.pe[:x.size(0), :]&lt;/b&gt;：把位置编码表加到嵌入上（随后做 dropout，仅在训练时）。</translation>
    </message>
    <message>
        <source>pad mask</source>
        <translation>填充掩码</translation>
    </message>
    <message>
        <source>OR</source>
        <translation>或</translation>
    </message>
    <message>
        <source>subsequence mask</source>
        <translation>后续掩码</translation>
    </message>
    <message>
        <source>decoder self-attention mask</source>
        <translation>解码器自注意力掩码</translation>
    </message>
    <message>
        <source>&lt;b&gt;torch.gt(pad_mask + subsequence_mask, 0)&lt;/b&gt;: a key is hidden from a query if it is padding &lt;i&gt;or&lt;/i&gt; a later word.</source>
        <translation>&lt;b&gt;torch.gt(pad_mask + subsequence_mask, 0)&lt;/b&gt;：如果一个键是填充，&lt;i&gt;或&lt;/i&gt;是更靠后的词，查询就看不到它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;get_attn_subsequence_mask&lt;/b&gt;: np.triu(ones, k=1) — 1 above the diagonal: while predicting, a word may not look at the words after it.</source>
        <translation>&lt;b&gt;get_attn_subsequence_mask&lt;/b&gt;：np.triu(ones, k=1) — 对角线以上为 1：预测时，一个词不能看它之后的词。</translation>
    </message>
    <message>
        <source>&lt;b&gt;get_attn_pad_mask(dec_inputs, enc_inputs)&lt;/b&gt;: queries from the decoder, keys from the source; 1 where the source word is the padding &apos;P&apos;.</source>
        <translation>&lt;b&gt;get_attn_pad_mask(dec_inputs, enc_inputs)&lt;/b&gt;：查询来自解码器，键来自源句子；源句子中的词是填充 &apos;P&apos; 的位置为 1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;get_attn_pad_mask&lt;/b&gt;: seq_k.eq(0) — 1 where the key is the padding &apos;P&apos; (expanded over every query row).</source>
        <translation>&lt;b&gt;get_attn_pad_mask&lt;/b&gt;：seq_k.eq(0) — 键为填充 &apos;P&apos; 的位置为 1（扩展到每个查询行）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;self.projection&lt;/b&gt; = nn.Linear(d_model, tgt_vocab_size, bias=False): one score per target word for every position.</source>
        <translation>&lt;b&gt;self.projection&lt;/b&gt; = nn.Linear(d_model, tgt_vocab_size, bias=False)：在每个位置为每个目标词给出一个分数。</translation>
    </message>
    <message>
        <source>probs</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>&lt;b&gt;softmax(logits)&lt;/b&gt;: for every position, the probability of each target word being the next one.</source>
        <translation>&lt;b&gt;softmax(logits)&lt;/b&gt;：在每个位置，每个目标词成为下一个词的概率。</translation>
    </message>
    <message>
        <source>−log P(correct)
→</source>
        <translation>−log P(正确)
→</translation>
    </message>
    <message>
        <source>&lt;b&gt;nn.CrossEntropyLoss(ignore_index=0)&lt;/b&gt;, position by position: −log of the probability given to the correct word (padding targets count 0).</source>
        <translation>&lt;b&gt;nn.CrossEntropyLoss(ignore_index=0)&lt;/b&gt;，逐个位置计算：正确词所得概率的 −log（目标为填充的位置计为 0）。</translation>
    </message>
    <message>
        <source>mean
→</source>
        <translation>取平均
→</translation>
    </message>
    <message>
        <source>&lt;b&gt;loss&lt;/b&gt;: the mean of the per-position losses over the non-padding targets.</source>
        <translation>&lt;b&gt;损失&lt;/b&gt;：各位置损失在非填充目标上的平均值。</translation>
    </message>
    <message>
        <source>tok_emb = wte(idx)</source>
        <translation>tok_emb = wte(idx)</translation>
    </message>
    <message>
        <source>&lt;b&gt;tok_emb = self.transformer.wte(idx)&lt;/b&gt;: each token id picks its row of wte.weight [vocab_size %1 × n_embd %2], with no × √n_embd. The same matrix is lm_head.weight (weight tying), so both uses train it.</source>
        <translation>&lt;b&gt;tok_emb = self.transformer.wte(idx)&lt;/b&gt;：每个词元 id 取出 wte.weight [vocab_size %1 × n_embd %2] 中对应的一行，不乘 √n_embd。同一个矩阵也是 lm_head.weight（权重共享），因此两处用途都会训练它。</translation>
    </message>
    <message>
        <source>pos_emb = wpe(pos)</source>
        <translation>pos_emb = wpe(pos)</translation>
    </message>
    <message>
        <source>&lt;b&gt;pos_emb = self.transformer.wpe(pos)&lt;/b&gt;, pos = torch.arange(0, t): the first t rows of the &lt;i&gt;learned&lt;/i&gt; table wpe.weight [block_size %1 × n_embd %2] — a parameter trained like any other, not a sinusoid. One row per position, shared by every sentence of the batch.</source>
        <translation>&lt;b&gt;pos_emb = self.transformer.wpe(pos)&lt;/b&gt;，pos = torch.arange(0, t)：&lt;i&gt;可学习的&lt;/i&gt;表 wpe.weight [block_size %1 × n_embd %2] 的前 t 行 — 它是一个参数，和其他参数一样参与训练，而不是正弦表。每个位置一行，批中的每个句子共用。</translation>
    </message>
    <message>
        <source>x (block 0&apos;s input)</source>
        <translation>x（块 0 的输入）</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = self.transformer.drop(tok_emb + pos_emb)&lt;/b&gt;: pos_emb [t, n_embd] is broadcast over the batch; dropout (p = %1) acts in training only. Block 0 reads this x.</source>
        <translation>&lt;b&gt;x = self.transformer.drop(tok_emb + pos_emb)&lt;/b&gt;：pos_emb [t, n_embd] 在批上广播；dropout（p = %1）仅在训练时生效。块 0 读取这个 x。</translation>
    </message>
    <message>
        <source>bias[:, :, :T, :T] (1 = keep)</source>
        <translation>bias[:, :, :T, :T]（1 = 保留）</translation>
    </message>
    <message>
        <source>&lt;b&gt;self.bias&lt;/b&gt; = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size): a buffer of CausalSelfAttention (saved, never trained), ones on and below the diagonal — &lt;b&gt;1 = may attend&lt;/b&gt;, 0 = a later position. Each forward reads its top-left T × T corner. There is no padding mask: pad words sit at the end, after every real word, so no real query sees them.</source>
        <translation>&lt;b&gt;self.bias&lt;/b&gt; = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)：CausalSelfAttention 的一个缓冲区（会被保存，从不训练），对角线及其以下为 1 — &lt;b&gt;1 = 可以关注&lt;/b&gt;，0 = 更靠后的位置。每次前向传播读取它左上角的 T × T 部分。这里没有填充掩码：填充词位于末尾，在所有真实的词之后，因此任何真实的查询都看不到它们。</translation>
    </message>
    <message>
        <source>× c_attn.weight[%1]ᵀ
+ c_attn.bias[%1]
→ head %2</source>
        <translation>× c_attn.weight[%1]ᵀ
+ c_attn.bias[%1]
→ 头 %2</translation>
    </message>
    <message>
        <source>× c_attn.weight[%1]ᵀ
→ head %2</source>
        <translation>× c_attn.weight[%1]ᵀ
→ 头 %2</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;q, k, v = self.c_attn(x).split(n_embd, dim=2)&lt;/b&gt;: c_attn = nn.Linear(n_embd, 3·n_embd%1) packs the three projections, its weight [%2, %3] rows q | k | v; %4 is rows %5. Then .view(B, T, n_head, C // n_head).transpose(1, 2) cuts it into n_head = %n heads of hs = %6 columns; shown: head %7.</source>
        <translation>
            <numerusform>&lt;b&gt;q, k, v = self.c_attn(x).split(n_embd, dim=2)&lt;/b&gt;：c_attn = nn.Linear(n_embd, 3·n_embd%1) 把三个投影打包在一起，其权重 [%2, %3] 的行依次为 q | k | v；%4 是其中的第 %5 行。随后 .view(B, T, n_head, C // n_head).transpose(1, 2) 将其切分为 n_head = %n 个头，每个头 hs = %6 列；当前显示：头 %7。</numerusform>
        </translation>
    </message>
    <message>
        <source>× 1/√hs
(%1)
=</source>
        <translation>× 1/√hs
(%1)
=</translation>
    </message>
    <message>
        <source>att (scores)</source>
        <translation>att（分数）</translation>
    </message>
    <message>
        <source>&lt;b&gt;att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))&lt;/b&gt;: the product first, then × 1/√hs = 1/√%1 = %2 — a multiplication after the product, not a division of q before it. Each row is a query, each column a key.</source>
        <translation>&lt;b&gt;att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))&lt;/b&gt;：先相乘，再 × 1/√hs = 1/√%1 = %2 — 这是在相乘之后做乘法，而不是在相乘之前把 q 除以某个数。每一行是一个查询，每一列是一个键。</translation>
    </message>
    <message>
        <source>masked_fill
(bias == 0,
−inf)</source>
        <translation>masked_fill
(bias == 0,
−inf)</translation>
    </message>
    <message>
        <source>bias (1 = keep)</source>
        <translation>bias（1 = 保留）</translation>
    </message>
    <message>
        <source>masked att</source>
        <translation>掩码后的 att</translation>
    </message>
    <message>
        <source>&lt;b&gt;att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float(&apos;-inf&apos;))&lt;/b&gt;: where the buffer is 0 (a key after the query) the score becomes &lt;b&gt;−∞&lt;/b&gt;, so the softmax gives it exactly 0. The diagonal is always kept, so no row is −∞ everywhere.</source>
        <translation>&lt;b&gt;att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float(&apos;-inf&apos;))&lt;/b&gt;：在缓冲区为 0 的位置（键在查询之后），分数变为 &lt;b&gt;−∞&lt;/b&gt;，因此 softmax 给它的权重恰好为 0。对角线始终保留，所以不会有哪一行全是 −∞。</translation>
    </message>
    <message>
        <source>att (weights)</source>
        <translation>att（权重）</translation>
    </message>
    <message>
        <source>&lt;b&gt;att = F.softmax(att, dim=-1); att = self.attn_dropout(att)&lt;/b&gt;: each row becomes weights that sum to 1, and exp(−∞) = 0 gives every later word exactly 0. attn_dropout (p = %1) acts in training only.</source>
        <translation>&lt;b&gt;att = F.softmax(att, dim=-1); att = self.attn_dropout(att)&lt;/b&gt;：每一行变为和为 1 的权重，而 exp(−∞) = 0 使每个更靠后的词的权重恰好为 0。attn_dropout（p = %1）仅在训练时生效。</translation>
    </message>
    <message>
        <source>&lt;b&gt;y = att @ v&lt;/b&gt;: each query&apos;s row is the attention-weighted mix of the value rows of its own and the earlier positions.</source>
        <translation>&lt;b&gt;y = att @ v&lt;/b&gt;：每个查询所在的行，是它自身及之前各位置的值行按注意力权重加权混合的结果。</translation>
    </message>
    <message>
        <source>y, all heads side by side</source>
        <translation>y，所有头并排拼接</translation>
    </message>
    <message>
        <source>attn.c_proj (the attention&apos;s output)</source>
        <translation>attn.c_proj（注意力的输出）</translation>
    </message>
    <message>
        <source>&lt;b&gt;y = y.transpose(1, 2).contiguous().view(B, T, C)&lt;/b&gt;, then &lt;b&gt;self.resid_dropout(self.c_proj(y))&lt;/b&gt;: the heads side by side (n_head · hs = %1 columns) mixed by c_proj = nn.Linear(n_embd, n_embd%2); resid_dropout acts in training only.</source>
        <translation>&lt;b&gt;y = y.transpose(1, 2).contiguous().view(B, T, C)&lt;/b&gt;，然后 &lt;b&gt;self.resid_dropout(self.c_proj(y))&lt;/b&gt;：各头并排拼接（n_head · hs = %1 列），再由 c_proj = nn.Linear(n_embd, n_embd%2) 混合；resid_dropout 仅在训练时生效。</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = x + self.mlp(self.ln_2(x))&lt;/b&gt;: the MLP read the normalised x; its output is added to x itself (pre-norm). The next block&apos;s ln_1, or ln_f after the last block, reads this sum.</source>
        <translation>&lt;b&gt;x = x + self.mlp(self.ln_2(x))&lt;/b&gt;：MLP 读取的是归一化后的 x；其输出加到 x 本身上（前置归一化）。下一个块的 ln_1（最后一个块之后则是 ln_f）读取这个和。</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = x + self.attn(self.ln_1(x))&lt;/b&gt;: the attention read the normalised x; its output is added to x itself (pre-norm), nothing normalises the sum here. ln_2 reads it next.</source>
        <translation>&lt;b&gt;x = x + self.attn(self.ln_1(x))&lt;/b&gt;：注意力读取的是归一化后的 x；其输出加到 x 本身上（前置归一化），这里不对这个和做归一化。接下来由 ln_2 读取它。</translation>
    </message>
    <message>
        <source>last block&apos;s output: %1</source>
        <translation>最后一个块的输出：%1</translation>
    </message>
    <message>
        <source>each row to mean 0 and variance 1 (ε = 1e-5), then · weight + bias (learned)</source>
        <translation>每一行归一化为均值 0、方差 1（ε = 1e-5），再 · weight + bias（可学习）</translation>
    </message>
    <message>
        <source>each row to mean 0 and variance 1 (ε = 1e-5), then · weight (learned; bias=False: no bias)</source>
        <translation>每一行归一化为均值 0、方差 1（ε = 1e-5），再 · weight（可学习；bias=False：无偏置）</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = self.transformer.ln_f(x)&lt;/b&gt;: one more LayerNorm after the last block, since a pre-norm block ends on an un-normalised sum; %1. lm_head reads it.</source>
        <translation>&lt;b&gt;x = self.transformer.ln_f(x)&lt;/b&gt;：在最后一个块之后再做一次 LayerNorm，因为前置归一化的块以未归一化的和结束；%1。lm_head 读取它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;self.%1(x)&lt;/b&gt;, nanoGPT&apos;s LayerNorm(n_embd, bias=%2): %3. Pre-norm: the %4 reads this, while the residual adds the %4&apos;s output to x itself.</source>
        <translation>&lt;b&gt;self.%1(x)&lt;/b&gt;，即 nanoGPT 的 LayerNorm(n_embd, bias=%2)：%3。前置归一化：%4 读取这个结果，而残差连接把 %4 的输出加到 x 本身上。</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = self.c_fc(x)&lt;/b&gt;, nn.Linear(n_embd, 4 * n_embd%1): every position widened from %2 to %3 features.</source>
        <translation>&lt;b&gt;x = self.c_fc(x)&lt;/b&gt;，即 nn.Linear(n_embd, 4 * n_embd%1)：每个位置从 %2 个特征扩展到 %3 个特征。</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = self.gelu(x)&lt;/b&gt;, nn.GELU(): the exact x · Φ(x) = x/2 · (1 + erf(x/√2)), not the tanh approximation. Large positive numbers pass, large negative ones go to 0, small negative ones dip a little below 0.</source>
        <translation>&lt;b&gt;x = self.gelu(x)&lt;/b&gt;，即 nn.GELU()：精确的 x · Φ(x) = x/2 · (1 + erf(x/√2))，而不是 tanh 近似。较大的正数基本原样通过，较大的负数趋于 0，较小的负数会略低于 0。</translation>
    </message>
    <message>
        <source>&lt;b&gt;x = self.dropout(self.c_proj(x))&lt;/b&gt;, c_proj = nn.Linear(4 * n_embd, n_embd%1): back from %2 to %3 features; dropout acts in training only.</source>
        <translation>&lt;b&gt;x = self.dropout(self.c_proj(x))&lt;/b&gt;，c_proj = nn.Linear(4 * n_embd, n_embd%1)：从 %2 个特征变回 %3 个特征；dropout 仅在训练时生效。</translation>
    </message>
    <message>
        <source>ln_f&apos;s output</source>
        <translation>ln_f 的输出</translation>
    </message>
    <message>
        <source>× wte.weightᵀ
(no bias)</source>
        <translation>× wte.weightᵀ
（无偏置）</translation>
    </message>
    <message>
        <source>&lt;b&gt;logits = self.lm_head(x)&lt;/b&gt;, nn.Linear(n_embd, vocab_size, bias=False) whose weight &lt;b&gt;is&lt;/b&gt; transformer.wte.weight (self.transformer.wte.weight = self.lm_head.weight): each position&apos;s vector is compared with every word&apos;s embedding row, one score for each of the %1 words.</source>
        <translation>&lt;b&gt;logits = self.lm_head(x)&lt;/b&gt;，即 nn.Linear(n_embd, vocab_size, bias=False)，其权重&lt;b&gt;就是&lt;/b&gt; transformer.wte.weight（self.transformer.wte.weight = self.lm_head.weight）：每个位置的向量与每个词的嵌入行相比较，为 %1 个词中的每一个给出一个分数。</translation>
    </message>
    <message>
        <source>&lt;b&gt;probs = F.softmax(logits, dim=-1)&lt;/b&gt;: for every position, the probability of each word being the next one. Training reads the logits (F.cross_entropy); generate() takes this softmax at the last position to pick the next word.</source>
        <translation>&lt;b&gt;probs = F.softmax(logits, dim=-1)&lt;/b&gt;：对每个位置，给出每个词作为下一个词的概率。训练读取的是 logits（F.cross_entropy）；generate() 取最后一个位置上的这个 softmax 来选出下一个词。</translation>
    </message>
    <message>
        <source>−log P(next word)
→</source>
        <translation>−log P(下一个词)
→</translation>
    </message>
    <message>
        <source>&lt;b&gt;F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=%1)&lt;/b&gt;, position by position: −log of the probability given to the target, the next word of the sentence (idx shifted by one); a pad target (id %1) counts 0.</source>
        <translation>&lt;b&gt;F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=%1)&lt;/b&gt;，逐个位置计算：目标（即句子的下一个词，idx 错开一位）所得概率的 −log；填充目标（id %1）计为 0。</translation>
    </message>
    <message>
        <source>&lt;b&gt;loss&lt;/b&gt;: F.cross_entropy&apos;s mean over every non-pad target of the batch (ignore_index=%1).</source>
        <translation>&lt;b&gt;损失&lt;/b&gt;：F.cross_entropy 在批中所有非填充目标上取的平均值（ignore_index=%1）。</translation>
    </message>
    <message>
        <source>key position %1 comes after query position %2: a future word (0 = masked)</source>
        <translation>键位置 %1 在查询位置 %2 之后：是后面的词（0 = 被掩码）</translation>
    </message>
</context>
<context>
    <name>StepSearchPopup</name>
    <message>
        <source>Find a step</source>
        <translation>查找步骤</translation>
    </message>
    <message>
        <source>Find a step: softmax decoder 3, scores, enc.layers.0…</source>
        <translation>查找步骤：softmax decoder 3、scores、enc.layers.0…</translation>
    </message>
    <message>
        <source>Step to find</source>
        <translation>要查找的步骤</translation>
    </message>
    <message>
        <source>Matching steps</source>
        <translation>匹配的步骤</translation>
    </message>
    <message>
        <source>Enter: go there · ↑↓: choose · Esc: close</source>
        <translation>Enter：跳转 · ↑↓：选择 · Esc：关闭</translation>
    </message>
</context>
<context>
    <name>StepView</name>
    <message>
        <source>Which sentence of the batch to show (the batch_size axis)</source>
        <translation>显示批中的哪个句子（batch_size 轴）</translation>
    </message>
    <message>
        <source>Which attention head to show (the n_heads axis)</source>
        <translation>显示哪个注意力头（n_heads 轴）</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
</context>
<context>
    <name>TensorSlice</name>
    <message>
        <source> · source token</source>
        <translation> · 源词元</translation>
    </message>
    <message>
        <source> · target token</source>
        <translation> · 目标词元</translation>
    </message>
    <message>
        <source> · target word</source>
        <translation> · 目标词</translation>
    </message>
    <message>
        <source>1 · every query</source>
        <translation>1 · 每个查询</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source> · position</source>
        <translation> · 位置</translation>
    </message>
    <message>
        <source>n_heads × d_v (concatenated heads)</source>
        <translation>n_heads × d_v（各头拼接）</translation>
    </message>
</context>
<context>
    <name>TensorTable</name>
    <message>
        <source>%1: %2 (float32, exactly %3)</source>
        <translation>%1：%2（float32，精确值 %3）</translation>
    </message>
    <message>
        <source>&lt;br&gt;-inf: masked, this key gets weight 0 after the softmax</source>
        <translation>&lt;br&gt;-inf：已掩码，该键在 softmax 之后权重为 0</translation>
    </message>
    <message>
        <source>&lt;br&gt;nan: every key of this row is masked, softmax of all -inf</source>
        <translation>&lt;br&gt;nan：该行的所有键都被掩码，对全为 -inf 的行做 softmax</translation>
    </message>
</context>
<context>
    <name>TensorView</name>
    <message>
        <source>All heads</source>
        <translation>所有头</translation>
    </message>
    <message>
        <source>Show every head of this tensor side by side (click one to pick it)</source>
        <translation>并排显示该张量的每个头（点击其中一个以选中）</translation>
    </message>
    <message>
        <source>Zoom out (Ctrl+mouse wheel)</source>
        <translation>缩小（Ctrl+鼠标滚轮）</translation>
    </message>
    <message>
        <source>Zoom in (Ctrl+mouse wheel)</source>
        <translation>放大（Ctrl+鼠标滚轮）</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应</translation>
    </message>
    <message>
        <source>Fit the whole tensor into the view</source>
        <translation>缩放整个张量以适应视图</translation>
    </message>
    <message>
        <source>Zoom:</source>
        <translation>缩放：</translation>
    </message>
    <message>
        <source>No data yet — run the forward pass to see the tensors.</source>
        <translation>尚无数据 — 请运行前向传播以查看张量。</translation>
    </message>
    <message>
        <source>Choose a step to see its tensors.</source>
        <translation>选择一个步骤以查看其张量。</translation>
    </message>
    <message>
        <source>No gradient for “%1” yet.
Run a backward pass (a training step) to see the gradients.</source>
        <translation>尚无“%1”的梯度。
请运行一次反向传播（一个训练步）以查看梯度。</translation>
    </message>
    <message>
        <source>No data for “%1” in this trace.</source>
        <translation>此追踪中没有“%1”的数据。</translation>
    </message>
    <message>
        <source>All %1 heads of &lt;tt&gt;%2&lt;/tt&gt; for sentence %3, on one colour scale. Click a head to pick it.</source>
        <translation>句子 %3 中 &lt;tt&gt;%2&lt;/tt&gt; 的全部 %1 个头，使用同一色标。点击某个头以选中。</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Colour scale shared by all heads: pale = %1, dark blue = %2. Hatched = masked.</source>
        <translation>所有头共用的色标：浅色 = %1，深蓝 = %2。斜线阴影 = 已掩码。</translation>
    </message>
    <message>
        <source>Colour scale shared by all heads: blue = %1, white = 0, red = +%2. Hatched = masked.</source>
        <translation>所有头共用的色标：蓝 = %1，白 = 0，红 = +%2。斜线阴影 = 已掩码。</translation>
    </message>
    <message>
        <source>The operation between the panels</source>
        <translation>两个面板之间的运算</translation>
    </message>
</context>
<context>
    <name>TrainingController</name>
    <message>
        <source>Training is already running.</source>
        <translation>训练已在进行中。</translation>
    </message>
    <message>
        <source>Invalid model configuration: %1</source>
        <translation>模型配置无效：%1</translation>
    </message>
    <message>
        <source>Invalid training options: %1</source>
        <translation>训练选项无效：%1</translation>
    </message>
    <message>
        <source>The dataset is empty: add at least one sentence pair.</source>
        <translation>数据集为空：请至少添加一个句子对。</translation>
    </message>
    <message>
        <source>Dataset row %1: %2</source>
        <translation>数据集第 %1 行：%2</translation>
    </message>
    <message>
        <source>The starting weights have %1 parameters, the model needs %2.</source>
        <translation>初始权重有 %1 个参数，而模型需要 %2 个。</translation>
    </message>
    <message>
        <source>The starting weights do not fit the model: %1 is %2, expected %3 %4.</source>
        <translation>初始权重与模型不匹配：%1 为 %2，应为 %3 %4。</translation>
    </message>
    <message>
        <source>the GPU stopped working (%1); training goes on on the CPU when started again</source>
        <translation>GPU 停止工作（%1）；再次开始时将在 CPU 上继续训练</translation>
    </message>
    <message>
        <source>Training could not run: %1</source>
        <translation>无法进行训练：%1</translation>
    </message>
</context>
<context>
    <name>TrainingPanel</name>
    <message>
        <source>the tutorial&apos;s</source>
        <translation>教程的</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Train a fresh model with these hyperparameters on the dataset (on a copy: the views keep their model until the run ends).</source>
        <translation>用这些超参数在数据集上训练一个新模型（在副本上进行：训练结束前各视图仍显示原来的模型）。</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause after the current step; Resume continues.</source>
        <translation>在当前步结束后暂停；点“继续”恢复。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>End the run after the current step, keeping its weights.</source>
        <translation>在当前步结束后结束训练，保留其权重。</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Abandon the run and clear the curves, snapshots and results.</source>
        <translation>放弃本次训练，并清除曲线、快照和结果。</translation>
    </message>
    <message>
        <source>Passes over the dataset (the same as &quot;epochs&quot; in the form).</source>
        <translation>遍历数据集的轮数（与表单中的“训练轮数”相同）。</translation>
    </message>
    <message>
        <source> epochs</source>
        <translation> 轮</translation>
    </message>
    <message>
        <source>Save checkpoint…</source>
        <translation>保存检查点…</translation>
    </message>
    <message>
        <source>Save the trained weights with their config and optimizer state (.safetensors).</source>
        <translation>保存训练好的权重及其配置和优化器状态（.safetensors）。</translation>
    </message>
    <message>
        <source>Resume from…</source>
        <translation>从检查点恢复…</translation>
    </message>
    <message>
        <source>Continue training from a saved checkpoint: its weights, architecture, vocabulary and optimizer state.</source>
        <translation>从已保存的检查点继续训练：沿用其权重、架构、词表和优化器状态。</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Attention replay</source>
        <translation>注意力回放</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>  %1 / %2 sentences translated correctly (see Results).</source>
        <translation>  %1 / %2 个句子翻译正确（见“结果”）。</translation>
    </message>
    <message>
        <source>Hyperparameters</source>
        <translation>超参数</translation>
    </message>
    <message>
        <source>The model&apos;s size, the optimizer and the training loop (the epochs are also beside Start)</source>
        <translation>模型规模、优化器和训练循环（轮数也显示在“开始”旁边）</translation>
    </message>
    <message>
        <source>Cannot start — %1</source>
        <translation>无法开始 — %1</translation>
    </message>
    <message>
        <source>Cannot start:</source>
        <translation>无法开始：</translation>
    </message>
    <message>
        <source>There are no trained weights to save yet: train first.</source>
        <translation>还没有可保存的训练权重：请先训练。</translation>
    </message>
    <message>
        <source>Could not save the checkpoint %1: %2</source>
        <translation>无法保存检查点 %1：%2</translation>
    </message>
    <message>
        <source>Stop the training before loading a checkpoint.</source>
        <translation>请先停止训练，再加载检查点。</translation>
    </message>
    <message>
        <source>Could not load the checkpoint %1: %2</source>
        <translation>无法加载检查点 %1：%2</translation>
    </message>
    <message>
        <source>Architecture and vocabulary fixed by the checkpoint %1. Reset to train a new model.</source>
        <translation>架构和词表已由检查点 %1 固定。点“重置”可训练新模型。</translation>
    </message>
    <message>
        <source>the checkpoint&apos;s</source>
        <translation>检查点的</translation>
    </message>
    <message>
        <source>Loaded %1 (%2 optimizer steps done). Start continues from its weights and optimizer state.</source>
        <translation>已加载 %1（已完成 %2 个优化器步）。“开始”将从其权重和优化器状态继续。</translation>
    </message>
    <message>
        <source>Loaded %1 (no optimizer state: the optimizer starts fresh). Start continues from its weights.</source>
        <translation>已加载 %1（无优化器状态：优化器从头开始）。“开始”将从其权重继续。</translation>
    </message>
    <message>
        <source>Save checkpoint</source>
        <translation>保存检查点</translation>
    </message>
    <message>
        <source>Checkpoints (*.safetensors)</source>
        <translation>检查点 (*.safetensors)</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>已保存 %1。</translation>
    </message>
    <message>
        <source>Resume training from a checkpoint</source>
        <translation>从检查点恢复训练</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Diverged</source>
        <translation>已发散</translation>
    </message>
    <message>
        <source> The checkpoint&apos;s optimizer state (%1) is not used: this run uses %2.</source>
        <translation>检查点中的优化器状态（%1）未被使用：本次训练使用 %2。</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:#777&apos;&gt;Training… the sentences are translated when the run ends.&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#777&apos;&gt;训练中… 训练结束后才会翻译这些句子。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Continuing from %1.</source>
        <translation>从 %1 继续。</translation>
    </message>
    <message>
        <source>The dataset has words the model&apos;s vocabulary lacks: this model gets the vocabulary built from the dataset (%1 source, %2 target tokens).</source>
        <translation>数据集中有模型词表所没有的词：此模型改用根据数据集构建的词表（源 %1 个词元，目标 %2 个词元）。</translation>
    </message>
    <message>
        <source>Epoch 1 / %1 · step 0 / %2 · starting…</source>
        <translation>第 1 / %1 轮 · 第 0 / %2 步 · 正在开始…</translation>
    </message>
    <message>
        <source>Epoch %1 / %2 · step %3 / %4 · %5 left</source>
        <translation>第 %1 / %2 轮 · 第 %3 / %4 步 · 剩余 %5</translation>
    </message>
    <message>
        <source>Finished %1 steps in %2; last loss %3.</source>
        <translation>已完成 %1 步，用时 %2；最后的损失为 %3。</translation>
    </message>
    <message>
        <source>Stopped after %1 steps; the weights so far are kept.</source>
        <translation>在 %1 步后停止；已保留目前的权重。</translation>
    </message>
    <message>
        <source>Stopped before the first step.</source>
        <translation>在第一步之前停止。</translation>
    </message>
    <message>
        <source>%1 · step %2 / %3</source>
        <translation>%1 · 第 %2 / %3 步</translation>
    </message>
    <message>
        <source>Diverged at step %1 / %2</source>
        <translation>在第 %1 / %2 步发散</translation>
    </message>
    <message>
        <source> · paused</source>
        <translation> · 已暂停</translation>
    </message>
    <message>
        <source>Start from checkpoint</source>
        <translation>从检查点开始</translation>
    </message>
    <message>
        <source>Train with these hyperparameters on the dataset (on a copy: the views keep their model until the run ends).</source>
        <translation>用这些超参数在数据集上训练（在副本上进行：训练结束前各视图仍显示原来的模型）。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>1 step</source>
        <translation>1 步</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1 步</translation>
    </message>
    <message>
        <source>%1 epochs × %2 of %3 sentences = %4 steps</source>
        <translation>%1 轮 × 每轮 %2（每步 %3 个句子）= 共 %4 步</translation>
    </message>
    <message>
        <source>No data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>Watch (%1 steps/s)</source>
        <translation>观看（%1 步/秒）</translation>
    </message>
    <message>
        <source>Full speed</source>
        <translation>全速</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Watch&lt;/b&gt;: each optimizer step takes at least %1 s (%2 steps a second), so the loss curve, the attention replay and the live views can be followed, and Pause or Stop can be reached in time.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Full speed&lt;/b&gt;: as fast as the machine trains.&lt;/p&gt;&lt;p&gt;Picking a preset in the hyperparameters sets its pace (Watch for the tutorial&apos;s, Full speed for the small one and custom runs). A change applies at once, also during a run.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;观看&lt;/b&gt;：每个优化器步至少耗时 %1 秒（每秒 %2 步），以便跟上损失曲线、注意力回放和实时视图，也来得及点“暂停”或“停止”。&lt;/p&gt;&lt;p&gt;&lt;b&gt;全速&lt;/b&gt;：以机器能达到的最快速度训练。&lt;/p&gt;&lt;p&gt;在超参数中选择预设会同时设定其节奏（教程的预设用“观看”，小模型和自定义训练用“全速”）。更改立即生效，训练过程中也是如此。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Live views</source>
        <translation>实时视图</translation>
    </message>
    <message>
        <source>Update the step-through views while training: about every %1 s (at most once a step) the run&apos;s current weights compute the forward pass of the sentences in the Sentences bar, and the views show it (the status bar says &quot;live&quot;). The backward pass is not computed during a run. Off: the views keep the shown model until the run ends.</source>
        <translation>训练时更新逐步视图：大约每 %1 秒（每步至多一次）用训练中的当前权重对“句子”栏中的句子计算前向传播，并在视图中显示（状态栏会显示“实时”）。训练期间不计算反向传播。关闭时：训练结束前各视图保持显示原来的模型。</translation>
    </message>
</context>
<context>
    <name>UnsavedWeightsPrompt</name>
    <message>
        <source>Unsaved trained weights</source>
        <translation>未保存的训练权重</translation>
    </message>
    <message>
        <source>The model trained in the Train panel has not been saved. Save it as a checkpoint before closing?</source>
        <translation>“训练”面板中训练的模型尚未保存。要在关闭前将其保存为检查点吗？</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <source>&amp;Open Weights…</source>
        <translation>打开权重(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a weights file: a Stepformer checkpoint or a state_dict saved from the tutorial&apos;s PyTorch code (safetensors) (Ctrl+O)</source>
        <translation>打开权重文件：Stepformer 检查点，或由教程的 PyTorch 代码保存的 state_dict（safetensors）（Ctrl+O）</translation>
    </message>
    <message>
        <source>Export Tensor as &amp;CSV…</source>
        <translation>将张量导出为 CSV(&amp;C)…</translation>
    </message>
    <message>
        <source>Save the current step&apos;s tensor as comma-separated values</source>
        <translation>将当前步骤的张量保存为逗号分隔值（CSV）文件</translation>
    </message>
    <message>
        <source>Export Tensor as &amp;NumPy…</source>
        <translation>将张量导出为 NumPy(&amp;N)…</translation>
    </message>
    <message>
        <source>Save the current step&apos;s tensor as a NumPy .npy file (np.load reads it)</source>
        <translation>将当前步骤的张量保存为 NumPy .npy 文件（可用 np.load 读取）</translation>
    </message>
    <message>
        <source>Export View as &amp;PNG…</source>
        <translation>将视图导出为 PNG(&amp;P)…</translation>
    </message>
    <message>
        <source>Save the current view as an image</source>
        <translation>将当前视图保存为图像</translation>
    </message>
    <message>
        <source>Export View as &amp;SVG…</source>
        <translation>将视图导出为 SVG(&amp;S)…</translation>
    </message>
    <message>
        <source>Save the current view as vector graphics</source>
        <translation>将当前视图保存为矢量图</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Follow Step</source>
        <translation>跟随步骤(&amp;F)</translation>
    </message>
    <message>
        <source>Switch to the view that suits each step: masks for a mask and the masked scores, attention for the softmax, the positional encoding for PE, the tensor otherwise</source>
        <translation>切换到适合每一步的视图：掩码和掩码后的分数用掩码视图，softmax 用注意力视图，PE 用位置编码视图，其余用张量视图</translation>
    </message>
    <message>
        <source>&amp;Restore Default Layout</source>
        <translation>恢复默认布局(&amp;R)</translation>
    </message>
    <message>
        <source>Put the docks back in the default arrangement for the window&apos;s size (compact in a window narrower than 1600 px)</source>
        <translation>按窗口大小将停靠面板恢复为默认排列（窗口宽度小于 1600 px 时使用紧凑布局）</translation>
    </message>
    <message>
        <source>Trained in the app</source>
        <translation>在本应用中训练</translation>
    </message>
    <message>
        <source>The weights of the last run of the Train panel (Train › Start)</source>
        <translation>“训练”面板最近一次训练的权重（训练 › 开始）</translation>
    </message>
    <message>
        <source>From File…</source>
        <translation>来自文件…</translation>
    </message>
    <message>
        <source>Weights opened with File › Open Weights</source>
        <translation>通过“文件 › 打开权重”打开的权重</translation>
    </message>
    <message>
        <source>&amp;Train Again</source>
        <translation>重新训练(&amp;T)</translation>
    </message>
    <message>
        <source>Forget the cached trained model of this preset and train it again</source>
        <translation>丢弃此预设已缓存的训练模型，并重新训练</translation>
    </message>
    <message>
        <source>&amp;Cancel Training</source>
        <translation>取消训练(&amp;C)</translation>
    </message>
    <message>
        <source>Stop training and keep showing the untrained model</source>
        <translation>停止训练，继续显示未训练的模型</translation>
    </message>
    <message>
        <source>Layer &amp;Lab (nn.TransformerEncoderLayer)…</source>
        <translation>层实验室（nn.TransformerEncoderLayer）(&amp;L)…</translation>
    </message>
    <message>
        <source>Seed 004&apos;s nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8) step by step, every number printed as PyTorch prints it; optionally a decoder layer after it</source>
        <translation>逐步演示种子文档 004 中的 nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8)，每个数都按 PyTorch 的打印方式显示；可选在其后接一个解码器层</translation>
    </message>
    <message>
        <source>Compare Score &amp;Scaling…</source>
        <translation>比较分数缩放(&amp;S)…</translation>
    </message>
    <message>
        <source>The current attention step&apos;s scores as (q/√d_k)·kᵀ (PyTorch, attention-is-all-you-need-pytorch) and as (q·kᵀ)/√d_k (the tutorial) side by side: the same maths, two roundings (Ctrl+Shift+K)</source>
        <translation>并排显示当前注意力步骤的分数按 (q/√d_k)·kᵀ（PyTorch、attention-is-all-you-need-pytorch）和按 (q·kᵀ)/√d_k（教程）计算的结果：数学上相同，舍入不同（Ctrl+Shift+K）</translation>
    </message>
    <message>
        <source>&amp;Save Trained Checkpoint…</source>
        <translation>保存训练好的检查点(&amp;S)…</translation>
    </message>
    <message>
        <source>Save the weights, config and optimizer state of the last run of the Train panel (Ctrl+S)</source>
        <translation>保存“训练”面板最近一次训练的权重、配置和优化器状态（Ctrl+S）</translation>
    </message>
    <message>
        <source>&amp;Backward: Gradient of This Step</source>
        <translation>反向传播：本步骤的梯度(&amp;B)</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>Switch to the backward pass at the gradient of the current step, ∂loss/∂(this tensor); a step without one goes to the loss&apos;s gradient, where backpropagation starts. The backward pass lists the gradients in the order they were computed, loss first (Home goes there); the earliest forward steps get their gradients last (Ctrl+B)</source>
        <translation>切换到反向传播中当前步骤的梯度 ∂loss/∂(此张量)；没有梯度的步骤会跳到损失的梯度，即反向传播的起点。反向传播按梯度的计算顺序列出，损失在最前（按 Home 跳到那里）；最早的前向步骤最后得到梯度（Ctrl+B）</translation>
    </message>
    <message>
        <source>&amp;Find Step…</source>
        <translation>查找步骤(&amp;F)…</translation>
    </message>
    <message>
        <source>Go to a step by its name or by words such as &quot;softmax decoder 3&quot; (Ctrl+F)</source>
        <translation>按名称或 &quot;softmax decoder 3&quot; 这样的关键词跳到某一步（Ctrl+F）</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show or hide the %1 panel</source>
        <translation>显示或隐藏“%1”面板</translation>
    </message>
    <message>
        <source>&amp;Step</source>
        <translation>步骤(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;About Stepformer</source>
        <translation>关于 Stepformer(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source> Model: </source>
        <translation> 模型： </translation>
    </message>
    <message>
        <source>The model to step through</source>
        <translation>要逐步查看的模型</translation>
    </message>
    <message>
        <source>From file…</source>
        <translation>来自文件…</translation>
    </message>
    <message>
        <source>Weights opened with File › Open Weights</source>
        <translation>通过“文件 › 打开权重”打开的权重</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
</context>
<context>
    <name>architecture</name>
    <message>
        <source>&lt;b&gt;Input Embedding&lt;/b&gt;&lt;br&gt;Each source token id picks its row of the embedding table [src_vocab_size %1 × d_model %2].</source>
        <translation>&lt;b&gt;输入嵌入&lt;/b&gt;&lt;br&gt;每个源词元 id 选取嵌入表 [src_vocab_size %1 × d_model %2] 中对应的行。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Output Embedding&lt;/b&gt;&lt;br&gt;Each decoder input token (the target shifted right, starting with &apos;%1&apos;) picks its row of the embedding table [tgt_vocab_size %2 × d_model %3].</source>
        <translation>&lt;b&gt;输出嵌入&lt;/b&gt;&lt;br&gt;每个解码器输入词元（右移一位的目标序列，以 &apos;%1&apos; 开头）选取嵌入表 [tgt_vocab_size %2 × d_model %3] 中对应的行。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Positional Encoding&lt;/b&gt;&lt;br&gt;A fixed table, no parameters: sin(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;) in even dimensions, cos in odd ones. It tells the model where each token is.</source>
        <translation>&lt;b&gt;位置编码&lt;/b&gt;&lt;br&gt;一张固定的表，没有参数：偶数维为 sin(pos / 10000&lt;sup&gt;2i/d_model&lt;/sup&gt;)，奇数维为 cos。它告诉模型每个词元所在的位置。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Embedding + positional encoding&lt;/b&gt;&lt;br&gt;Added element-wise: the input of layer 0 (dropout follows in training).</source>
        <translation>&lt;b&gt;嵌入 + 位置编码&lt;/b&gt;&lt;br&gt;逐元素相加：即第 0 层的输入（训练时其后接 dropout）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Multi-Head Attention&lt;/b&gt; (encoder self-attention)&lt;br&gt;Q, K, V = x·W&lt;sub&gt;Q&lt;/sub&gt;, x·W&lt;sub&gt;K&lt;/sub&gt;, x·W&lt;sub&gt;V&lt;/sub&gt; split into %1 heads of d_k %2; scores = QK&lt;sup&gt;T&lt;/sup&gt;/√d_k; padding masked; softmax; weighted sum of V; output projection.</source>
        <translation>&lt;b&gt;多头注意力&lt;/b&gt;（编码器自注意力）&lt;br&gt;Q, K, V = x·W&lt;sub&gt;Q&lt;/sub&gt;, x·W&lt;sub&gt;K&lt;/sub&gt;, x·W&lt;sub&gt;V&lt;/sub&gt;，拆分为 %1 个头，每头 d_k %2；scores = QK&lt;sup&gt;T&lt;/sup&gt;/√d_k；遮住填充位置；softmax；对 V 加权求和；输出投影。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Masked Multi-Head Attention&lt;/b&gt; (decoder self-attention)&lt;br&gt;Like the encoder&apos;s, but the mask also hides later positions (subsequent mask): a position can only attend to itself and earlier ones.</source>
        <translation>&lt;b&gt;掩码多头注意力&lt;/b&gt;（解码器自注意力）&lt;br&gt;与编码器的相同，但掩码还会遮住后面的位置（后续掩码）：每个位置只能关注自身及之前的位置。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Multi-Head Attention&lt;/b&gt; (encoder-decoder attention)&lt;br&gt;Q comes from the decoder, K and V from the encoder&apos;s output: each target position looks at the source sentence.</source>
        <translation>&lt;b&gt;多头注意力&lt;/b&gt;（编码器-解码器注意力）&lt;br&gt;Q 来自解码器，K 和 V 来自编码器的输出：每个目标位置都查看源句子。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Add &amp; Norm&lt;/b&gt;&lt;br&gt;Residual connection (sub-layer output + its input), then LayerNorm over d_model with a learned scale γ and shift β.</source>
        <translation>&lt;b&gt;Add &amp; Norm&lt;/b&gt;&lt;br&gt;残差连接（子层输出 + 其输入），然后在 d_model 上做 LayerNorm，带可学习的缩放 γ 和平移 β。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Add &amp; Norm&lt;/b&gt;&lt;br&gt;Residual connection (sub-layer output + its input), then LayerNorm over d_model with no learned scale (γ = 1, β = 0: the tutorial builds a fresh nn.LayerNorm in every call, so it is never trained).</source>
        <translation>&lt;b&gt;Add &amp; Norm&lt;/b&gt;&lt;br&gt;残差连接（子层输出 + 其输入），然后在 d_model 上做 LayerNorm，没有可学习的缩放（γ = 1，β = 0：教程在每次调用时都新建一个 nn.LayerNorm，因此它从不被训练）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Feed Forward&lt;/b&gt;&lt;br&gt;Position-wise: Linear d_model %1 → d_ff %2, ReLU, Linear d_ff → d_model, the same for every position.</source>
        <translation>&lt;b&gt;前馈网络&lt;/b&gt;&lt;br&gt;逐位置：Linear d_model %1 → d_ff %2，ReLU，Linear d_ff → d_model，每个位置都相同。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Linear&lt;/b&gt;&lt;br&gt;Projection d_model %1 → tgt_vocab_size %2: one logit per target word.</source>
        <translation>&lt;b&gt;线性层&lt;/b&gt;&lt;br&gt;投影 d_model %1 → tgt_vocab_size %2：每个目标词一个 logit。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;Turns the logits into probabilities over the target vocabulary.</source>
        <translation>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;将 logits 转换为目标词表上的概率。</translation>
    </message>
</context>
<context>
    <name>labsteps</name>
    <message>
        <source>tgt (decoder input)</source>
        <translation>tgt（解码器输入）</translation>
    </message>
    <message>
        <source>the decoder layer&apos;s input</source>
        <translation>解码器层的输入</translation>
    </message>
    <message>
        <source>src (encoder input)</source>
        <translation>src（编码器输入）</translation>
    </message>
    <message>
        <source>the encoder layer&apos;s input</source>
        <translation>编码器层的输入</translation>
    </message>
    <message>
        <source>%1 · self-attn</source>
        <translation>%1 · 自注意力</translation>
    </message>
    <message>
        <source>self_attn, add1, norm1</source>
        <translation>self_attn, add1, norm1</translation>
    </message>
    <message>
        <source>%1 · cross-attn</source>
        <translation>%1 · 交叉注意力</translation>
    </message>
    <message>
        <source>multihead_attn over memory, add2, norm2</source>
        <translation>multihead_attn（作用于 memory）, add2, norm2</translation>
    </message>
    <message>
        <source>%1 · feed-forward</source>
        <translation>%1 · 前馈网络</translation>
    </message>
    <message>
        <source>linear1, %1, linear2, add3, norm3</source>
        <translation>linear1, %1, linear2, add3, norm3</translation>
    </message>
    <message>
        <source>linear1, %1, linear2, add2, norm2</source>
        <translation>linear1, %1, linear2, add2, norm2</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>grad · %1</source>
        <translation>梯度 · %1</translation>
    </message>
    <message>
        <source>Backward pass, gradients of loss = output[..., 0].sum(): %1</source>
        <translation>反向传播，loss = output[..., 0].sum() 的梯度：%1</translation>
    </message>
    <message>
        <source>∂loss/∂%1 for loss = output[..., 0].sum(): what %1.grad holds after loss.backward() (with %1.retain_grad()); 1 at feature 0 of the output, carried back through every step</source>
        <translation>∂loss/∂%1，其中 loss = output[..., 0].sum()：即 loss.backward() 之后 %1.grad 中的值（需先调用 %1.retain_grad()）；输出的第 0 个特征处为 1，经每一步反向传回</translation>
    </message>
    <message>
        <source>memory (the encoder layer&apos;s output)</source>
        <translation>memory（编码器层的输出）</translation>
    </message>
    <message>
        <source>x</source>
        <translation>x</translation>
    </message>
    <message>
        <source>then split into %1 heads of %2: .view(L, B·%1, %2).transpose(0, 1)</source>
        <translation>然后拆分为 %1 个头，每头 %2 维：.view(L, B·%1, %2).transpose(0, 1)</translation>
    </message>
    <message>
        <source>tgt, the decoder layer&apos;s input [tgt_len, batch, d_model]: decoder_layer(tgt, memory, tgt_mask=…, tgt_key_padding_mask=…, memory_key_padding_mask=…)</source>
        <translation>tgt，解码器层的输入 [tgt_len, batch, d_model]：decoder_layer(tgt, memory, tgt_mask=…, tgt_key_padding_mask=…, memory_key_padding_mask=…)</translation>
    </message>
    <message>
        <source>src, the encoder layer&apos;s input [seq_len, batch, d_model]: memory = encoder_layer(src, src_key_padding_mask=…); seed 004: encoder_input = torch.randn(3, 1, 4) after manual_seed(42)</source>
        <translation>src，编码器层的输入 [seq_len, batch, d_model]：memory = encoder_layer(src, src_key_padding_mask=…)；种子文档 004：在 manual_seed(42) 之后 encoder_input = torch.randn(3, 1, 4)</translation>
    </message>
    <message>
        <source>q = F.linear(x, %1) (%2.in_proj_weight packs Q | K | V), %3</source>
        <translation>q = F.linear(x, %1)（%2.in_proj_weight 打包了 Q | K | V），%3</translation>
    </message>
    <message>
        <source>k = F.linear(%1, %2), %3</source>
        <translation>k = F.linear(%1, %2)，%3</translation>
    </message>
    <message>
        <source>v = F.linear(%1, %2), %3</source>
        <translation>v = F.linear(%1, %2)，%3</translation>
    </message>
    <message>
        <source>q = q / math.sqrt(%1), then torch.bmm(q, k.transpose(-2, -1)): every query against every key, per head (PyTorch scales q before the product; seed 004 divides after it, the same to rounding)</source>
        <translation>q = q / math.sqrt(%1)，然后 torch.bmm(q, k.transpose(-2, -1))：在每个头内，每个查询与每个键计算（PyTorch 在乘积之前缩放 q；种子文档 004 在乘积之后再除，结果在舍入误差内相同）</translation>
    </message>
    <message>
        <source>attn_mask and key_padding_mask merged into one additive mask per head: 0 where a query may look, -inf where it may not (key_padding_mask True = ignore; generate_square_subsequent_mask puts -inf above the diagonal). All 0 when no mask is given</source>
        <translation>attn_mask 与 key_padding_mask 合并为每个头一个加性掩码：查询可以关注的位置为 0，不可关注的位置为 -inf（key_padding_mask 为 True 表示忽略；generate_square_subsequent_mask 在对角线上方填入 -inf）。未给出掩码时全为 0</translation>
    </message>
    <message>
        <source>torch.baddbmm(attn_mask, q, k.transpose(-2, -1)): the scores plus the mask; a -inf stays -inf</source>
        <translation>torch.baddbmm(attn_mask, q, k.transpose(-2, -1))：分数加上掩码；-inf 仍为 -inf</translation>
    </message>
    <message>
        <source>F.softmax(attn_output_weights, dim=-1): each row sums to 1, -inf becomes 0; a row whose keys are all masked is all -inf and comes out nan (PyTorch 1.13 does not guard it)</source>
        <translation>F.softmax(attn_output_weights, dim=-1)：每行之和为 1，-inf 变为 0；若某行的键全被掩码，该行全为 -inf，结果为 nan（PyTorch 1.13 未对此做防护）</translation>
    </message>
    <message>
        <source>torch.bmm(attn_output_weights, v): each query&apos;s weighted sum of the values, per head</source>
        <translation>torch.bmm(attn_output_weights, v)：在每个头内，每个查询对值的加权和</translation>
    </message>
    <message>
        <source>the heads side by side again, attn_output.transpose(0, 1).contiguous().view(L·B, %1), then F.linear(attn_output, %2.out_proj.weight, %2.out_proj.bias)</source>
        <translation>再将各头并排拼接，attn_output.transpose(0, 1).contiguous().view(L·B, %1)，然后 F.linear(attn_output, %2.out_proj.weight, %2.out_proj.bias)</translation>
    </message>
    <message>
        <source>self.norm%1(x)</source>
        <translation>self.norm%1(x)</translation>
    </message>
    <message>
        <source>x + %1: the residual connection (dropout %2: nothing dropped)%3</source>
        <translation>x + %1：残差连接（dropout %2：没有丢弃任何值）%3</translation>
    </message>
    <message>
        <source>; with norm_first=True this is the layer&apos;s output, no norm after it</source>
        <translation>；在 norm_first=True 时这就是该层的输出，其后没有归一化</translation>
    </message>
    <message>
        <source>F.layer_norm(x, (%1,), %2.weight, %2.bias, eps=%3): each position&apos;s %1 features to mean 0 and variance 1, then × weight + bias</source>
        <translation>F.layer_norm(x, (%1,), %2.weight, %2.bias, eps=%3)：将每个位置的 %1 个特征归一化为均值 0、方差 1，再 × weight + bias</translation>
    </message>
    <message>
        <source>norm_first=True: %1 before the sub-layer, %2</source>
        <translation>norm_first=True：在子层之前执行 %1，%2</translation>
    </message>
    <message>
        <source>x = self.%1(x + sub-layer(x)): %2%3</source>
        <translation>x = self.%1(x + sub-layer(x))：%2%3</translation>
    </message>
    <message>
        <source>; the layer&apos;s output</source>
        <translation>；即该层的输出</translation>
    </message>
    <message>
        <source>F.linear(x, linear1.weight, linear1.bias): d_model %1 → dim_feedforward %2</source>
        <translation>F.linear(x, linear1.weight, linear1.bias)：d_model %1 → dim_feedforward %2</translation>
    </message>
    <message>
        <source>F.relu(x): negative numbers become 0</source>
        <translation>F.relu(x)：负数变为 0</translation>
    </message>
    <message>
        <source>F.gelu(x) = x·Φ(x) = x/2·(1 + erf(x/√2)), the exact form (approximate=&apos;none&apos;)</source>
        <translation>F.gelu(x) = x·Φ(x) = x/2·(1 + erf(x/√2))，精确形式（approximate=&apos;none&apos;）</translation>
    </message>
    <message>
        <source>F.linear(x, linear2.weight, linear2.bias): dim_feedforward %1 → d_model %2</source>
        <translation>F.linear(x, linear2.weight, linear2.bias)：dim_feedforward %1 → d_model %2</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>position (%1, src)</source>
        <translation>位置（%1，src）</translation>
    </message>
    <message>
        <source>position (%1, tgt)</source>
        <translation>位置（%1，tgt）</translation>
    </message>
    <message>
        <source>feature (%1)</source>
        <translation>特征（%1）</translation>
    </message>
    <message>
        <source>%1 = [batch, num_heads, %2, %3]; PyTorch holds it as [batch·num_heads, %2, %3] = %4 (F.multi_head_attention_forward, seed 004&apos;s reshape_for_heads)</source>
        <translation>%1 = [batch, num_heads, %2, %3]；PyTorch 将其存为 [batch·num_heads, %2, %3] = %4（F.multi_head_attention_forward，种子文档 004 的 reshape_for_heads）</translation>
    </message>
    <message>
        <source>%1 = [%2, batch, %3] (batch_first=False)</source>
        <translation>%1 = [%2, batch, %3]（batch_first=False）</translation>
    </message>
</context>
<context>
    <name>models</name>
    <message>
        <source>the tutorial&apos;s model (seed 001), which computes &lt;b&gt;B&lt;/b&gt;</source>
        <translation>教程的模型（种子文档 001），计算的是 &lt;b&gt;B&lt;/b&gt;</translation>
    </message>
    <message>
        <source>PyTorch&apos;s nn.Transformer layers (seeds 002 and 004), which compute &lt;b&gt;A&lt;/b&gt;</source>
        <translation>PyTorch 的 nn.Transformer 层（种子文档 002 和 004），计算的是 &lt;b&gt;A&lt;/b&gt;</translation>
    </message>
    <message>
        <source>attention-is-all-you-need-pytorch (seed 003), which computes &lt;b&gt;A&lt;/b&gt;</source>
        <translation>attention-is-all-you-need-pytorch（种子文档 003），计算的是 &lt;b&gt;A&lt;/b&gt;</translation>
    </message>
    <message>
        <source>nanoGPT&apos;s GPT, which computes &lt;b&gt;B&lt;/b&gt; (the product times 1/√hs)</source>
        <translation>nanoGPT 的 GPT，计算的是 &lt;b&gt;B&lt;/b&gt;（乘积再乘以 1/√hs）</translation>
    </message>
</context>
<context>
    <name>models::aiayn</name>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;nn.Embedding(vocabulary, d_model %2, padding_idx=0): the pad row gets no gradient.%3</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;nn.Embedding(vocabulary, d_model %2, padding_idx=0)：填充行不接收梯度。%3</translation>
    </message>
    <message>
        <source> Then × √d_model (scale_emb_or_prj = &apos;emb&apos;).</source>
        <translation>然后 × √d_model（scale_emb_or_prj = &apos;emb&apos;）。</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;b&gt;Shared&lt;/b&gt; with trg_word_prj.weight (one parameter).</source>
        <translation>&lt;br&gt;与 trg_word_prj.weight &lt;b&gt;共享&lt;/b&gt;（同一个参数）。</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;b&gt;Shared&lt;/b&gt; between src_word_emb and trg_word_emb.</source>
        <translation>&lt;br&gt;在 src_word_emb 与 trg_word_emb 之间&lt;b&gt;共享&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>&lt;b&gt;position_enc&lt;/b&gt;&lt;br&gt;The sinusoid table pos_table (n_position %1 rows), computed in float64 and stored as float32; a buffer, never trained.</source>
        <translation>&lt;b&gt;position_enc&lt;/b&gt;&lt;br&gt;正弦表 pos_table（n_position %1 行），以 float64 计算、以 float32 存储；是一个 buffer，从不训练。</translation>
    </message>
    <message>
        <source>&lt;b&gt;+ position_enc&lt;/b&gt;&lt;br&gt;emb + pos_table[:, :len], then dropout.</source>
        <translation>&lt;b&gt;+ position_enc&lt;/b&gt;&lt;br&gt;emb + pos_table[:, :len]，然后 dropout。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1.layer_norm&lt;/b&gt;&lt;br&gt;nn.LayerNorm(d_model, eps=1e-6) over the embeddings plus positions, &lt;i&gt;before&lt;/i&gt; the first layer.</source>
        <translation>&lt;b&gt;%1.layer_norm&lt;/b&gt;&lt;br&gt;nn.LayerNorm(d_model, eps=1e-6)，作用于嵌入加位置编码的结果，位于第一层&lt;i&gt;之前&lt;/i&gt;。</translation>
    </message>
    <message>
        <source>&lt;b&gt;dropout · + residual · layer_norm&lt;/b&gt; (post-norm)&lt;br&gt;x = dropout(sub-layer output); x += residual; nn.LayerNorm(d_model, eps=1e-6) with learned γ, β.</source>
        <translation>&lt;b&gt;dropout · + 残差 · layer_norm&lt;/b&gt;（后置归一化）&lt;br&gt;x = dropout(子层输出)；x += residual；nn.LayerNorm(d_model, eps=1e-6)，带可学习的 γ、β。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (MultiHeadAttention, %2 heads, d_k %3, d_v %4)&lt;br&gt;w_qs, w_ks, w_vs without bias; q / temperature (√d_k) · kᵀ; masked_fill(mask == 0, −1e9) (masks 1 = keep); softmax; dropout; · v; fc without bias.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（MultiHeadAttention，%2 个头，d_k %3，d_v %4）&lt;br&gt;w_qs、w_ks、w_vs 无偏置；q / temperature (√d_k) · kᵀ；masked_fill(mask == 0, −1e9)（掩码中 1 = 保留）；softmax；dropout；· v；fc 无偏置。</translation>
    </message>
    <message>
        <source>&lt;b&gt;pos_ffn&lt;/b&gt;&lt;br&gt;w_1 (d_model %1 → d_inner %2, with bias), ReLU, w_2 (back, with bias), dropout.</source>
        <translation>&lt;b&gt;pos_ffn&lt;/b&gt;&lt;br&gt;w_1（d_model %1 → d_inner %2，带偏置），ReLU，w_2（映射回去，带偏置），dropout。</translation>
    </message>
    <message>
        <source>&lt;b&gt;trg_word_prj&lt;/b&gt;&lt;br&gt;nn.Linear(d_model %1, n_trg_vocab %2, bias=False)%3%4</source>
        <translation>&lt;b&gt;trg_word_prj&lt;/b&gt;&lt;br&gt;nn.Linear(d_model %1, n_trg_vocab %2, bias=False)%3%4</translation>
    </message>
    <message>
        <source>; its weight is &lt;b&gt;shared&lt;/b&gt; with decoder.trg_word_emb</source>
        <translation>；其权重与 decoder.trg_word_emb &lt;b&gt;共享&lt;/b&gt;</translation>
    </message>
    <message>
        <source>; its own weight</source>
        <translation>；使用自己的权重</translation>
    </message>
    <message>
        <source>; logits × d_model&lt;sup&gt;−0.5&lt;/sup&gt;.</source>
        <translation>；logits × d_model&lt;sup&gt;−0.5&lt;/sup&gt;。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;Probabilities over the target vocabulary (cal_loss reads the logits).</source>
        <translation>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;目标词表上的概率（cal_loss 读取的是 logits）。</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
</context>
<context>
    <name>models::gpt</name>
    <message>
        <source>&lt;b&gt;transformer.wte&lt;/b&gt;&lt;br&gt;nn.Embedding(vocab_size %1, n_embd %2): each token id of idx picks its row (no × √n_embd).&lt;br&gt;&lt;b&gt;Tied&lt;/b&gt;: lm_head.weight is this same matrix.</source>
        <translation>&lt;b&gt;transformer.wte&lt;/b&gt;&lt;br&gt;nn.Embedding(vocab_size %1, n_embd %2)：idx 中的每个词元 id 取出对应的一行（不乘 √n_embd）。&lt;br&gt;&lt;b&gt;共享权重&lt;/b&gt;：lm_head.weight 就是这同一个矩阵。</translation>
    </message>
    <message>
        <source>&lt;b&gt;transformer.wpe&lt;/b&gt;&lt;br&gt;nn.Embedding(block_size %1, n_embd %2): a &lt;i&gt;learned&lt;/i&gt; position table, trained like any weight (not a sinusoid); rows 0 … T−1 are read.</source>
        <translation>&lt;b&gt;transformer.wpe&lt;/b&gt;&lt;br&gt;nn.Embedding(block_size %1, n_embd %2)：一个&lt;i&gt;可学习的&lt;/i&gt;位置表，和其他权重一样参与训练（不是正弦表）；读取第 0 … T−1 行。</translation>
    </message>
    <message>
        <source>&lt;b&gt;transformer.drop&lt;/b&gt;&lt;br&gt;x = drop(tok_emb + pos_emb): the positions added, then dropout (p = %1, training only).</source>
        <translation>&lt;b&gt;transformer.drop&lt;/b&gt;&lt;br&gt;x = drop(tok_emb + pos_emb)：加上位置，再做 dropout（p = %1，仅在训练时）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;transformer.ln_f&lt;/b&gt;&lt;br&gt;LayerNorm(n_embd, %1, ε 1e-5) after the last block: a pre-norm block ends on an un-normalised sum.</source>
        <translation>&lt;b&gt;transformer.ln_f&lt;/b&gt;&lt;br&gt;LayerNorm(n_embd, %1, ε 1e-5)，位于最后一个块之后：前置归一化的块以未归一化的和结束。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (pre-norm)&lt;br&gt;LayerNorm(n_embd, %2, ε 1e-5) applied to x &lt;i&gt;before&lt;/i&gt; the %3; the residual goes around both.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（前置归一化）&lt;br&gt;LayerNorm(n_embd, %2, ε 1e-5)，在 %3 &lt;i&gt;之前&lt;/i&gt;作用于 x；残差绕过这两者。</translation>
    </message>
    <message>
        <source>&lt;b&gt;attn&lt;/b&gt; (CausalSelfAttention, %1 heads of hs %2)&lt;br&gt;q, k, v = c_attn(x).split(n_embd), c_attn [3·n_embd, n_embd] (%3); (q @ kᵀ) · 1/√hs; masked_fill(bias == 0, −inf) with the causal buffer bias (1 = keep); softmax; attn_dropout; @ v; c_proj (%3); resid_dropout.</source>
        <translation>&lt;b&gt;attn&lt;/b&gt;（CausalSelfAttention，%1 个头，hs %2）&lt;br&gt;q, k, v = c_attn(x).split(n_embd)，c_attn [3·n_embd, n_embd]（%3）；(q @ kᵀ) · 1/√hs；masked_fill(bias == 0, −inf)，使用因果缓冲区 bias（1 = 保留）；softmax；attn_dropout；@ v；c_proj（%3）；resid_dropout。</translation>
    </message>
    <message>
        <source>&lt;b&gt;resid2&lt;/b&gt;&lt;br&gt;x = x + mlp(ln_2(x)): the block&apos;s output.</source>
        <translation>&lt;b&gt;resid2&lt;/b&gt;&lt;br&gt;x = x + mlp(ln_2(x))：块的输出。</translation>
    </message>
    <message>
        <source>&lt;b&gt;resid1&lt;/b&gt;&lt;br&gt;x = x + attn(ln_1(x)): the sum is not normalised (pre-norm).</source>
        <translation>&lt;b&gt;resid1&lt;/b&gt;&lt;br&gt;x = x + attn(ln_1(x))：这个和不做归一化（前置归一化）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;mlp&lt;/b&gt;&lt;br&gt;c_fc (n_embd %1 → 4·n_embd %2), GELU (exact), c_proj (back to n_embd), dropout; Linear layers with %3.</source>
        <translation>&lt;b&gt;mlp&lt;/b&gt;&lt;br&gt;c_fc（n_embd %1 → 4·n_embd %2），GELU（精确），c_proj（变回 n_embd），dropout；线性层均为 %3。</translation>
    </message>
    <message>
        <source>&lt;b&gt;lm_head&lt;/b&gt;&lt;br&gt;nn.Linear(n_embd %1, vocab_size %2, bias=False) whose weight &lt;b&gt;is&lt;/b&gt; transformer.wte.weight (weight tying: one parameter, its gradient the sum of both uses).</source>
        <translation>&lt;b&gt;lm_head&lt;/b&gt;&lt;br&gt;nn.Linear(n_embd %1, vocab_size %2, bias=False)，其权重&lt;b&gt;就是&lt;/b&gt; transformer.wte.weight（权重共享：同一个参数，其梯度是两处用途的梯度之和）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;Probabilities of the next word at every position (F.cross_entropy reads the logits).</source>
        <translation>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;每个位置上下一个词的概率（F.cross_entropy 读取的是 logits）。</translation>
    </message>
</context>
<context>
    <name>models::torch</name>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;Each token id picks its row of &lt;tt&gt;%1.embedding.weight&lt;/tt&gt; [vocabulary × d_model %2], times √d_model.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;每个词元 id 选取 &lt;tt&gt;%1.embedding.weight&lt;/tt&gt; [词表 × d_model %2] 中对应的行，再乘以 √d_model。</translation>
    </message>
    <message>
        <source>&lt;b&gt;positional_encoding&lt;/b&gt;&lt;br&gt;The fixed sinusoid table &lt;tt&gt;pos_embedding&lt;/tt&gt; (a buffer, not trained).</source>
        <translation>&lt;b&gt;positional_encoding&lt;/b&gt;&lt;br&gt;固定的正弦表 &lt;tt&gt;pos_embedding&lt;/tt&gt;（一个 buffer，不训练）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Embedding + pos_embedding&lt;/b&gt;&lt;br&gt;Added element-wise, then dropout: what the first layer reads.</source>
        <translation>&lt;b&gt;嵌入 + pos_embedding&lt;/b&gt;&lt;br&gt;逐元素相加，然后 dropout：即第一层读取的内容。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (nn.MultiheadAttention, %2 heads of head_dim %3)&lt;br&gt;q, k, v from the packed &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model] with &lt;tt&gt;in_proj_bias&lt;/tt&gt;; q / √head_dim · kᵀ; the additive mask (0 / −∞: %4); softmax; attn · v; &lt;tt&gt;out_proj&lt;/tt&gt; with its bias.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（nn.MultiheadAttention，%2 个头，head_dim %3）&lt;br&gt;q、k、v 由打包的 &lt;tt&gt;in_proj_weight&lt;/tt&gt; [3·d_model, d_model] 与 &lt;tt&gt;in_proj_bias&lt;/tt&gt; 得到；q / √head_dim · kᵀ；加性掩码（0 / −∞：%4）；softmax；attn · v；带偏置的 &lt;tt&gt;out_proj&lt;/tt&gt;。</translation>
    </message>
    <message>
        <source>tgt_mask, causal, and the target&apos;s padding</source>
        <translation>tgt_mask：因果掩码加上目标序列的填充</translation>
    </message>
    <message>
        <source>memory_key_padding_mask; k and v from the memory</source>
        <translation>memory_key_padding_mask；k 和 v 来自 memory</translation>
    </message>
    <message>
        <source>src_key_padding_mask</source>
        <translation>src_key_padding_mask</translation>
    </message>
    <message>
        <source>&lt;b&gt;add%1&lt;/b&gt;&lt;br&gt;x + the sub-layer&apos;s output (norm_first=True: the sub-layer read norm%1(x), the sum is not normalised).</source>
        <translation>&lt;b&gt;add%1&lt;/b&gt;&lt;br&gt;x + 子层的输出（norm_first=True：子层读取的是 norm%1(x)，相加结果不再归一化）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1.norm&lt;/b&gt;&lt;br&gt;nn.Transformer&apos;s final nn.LayerNorm(d_model) after the stack&apos;s last layer, with learned weight and bias (ε %2).</source>
        <translation>&lt;b&gt;%1.norm&lt;/b&gt;&lt;br&gt;nn.Transformer 在堆叠的最后一层之后的最终 nn.LayerNorm(d_model)，带可学习的权重和偏置（ε %2）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;norm%1&lt;/b&gt; (pre-norm, norm_first=True)&lt;br&gt;nn.LayerNorm(d_model) with learned weight and bias, applied to x &lt;i&gt;before&lt;/i&gt; the sub-layer; the residual goes around both.</source>
        <translation>&lt;b&gt;norm%1&lt;/b&gt;（前置归一化，norm_first=True）&lt;br&gt;nn.LayerNorm(d_model)，带可学习的权重和偏置，在子层&lt;i&gt;之前&lt;/i&gt;作用于 x；残差绕过这两者。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Add &amp; Norm: add%1, norm%1&lt;/b&gt; (post-norm, norm_first=False)&lt;br&gt;x + the sub-layer&apos;s output, then nn.LayerNorm(d_model) with learned weight and bias.</source>
        <translation>&lt;b&gt;Add &amp; Norm：add%1, norm%1&lt;/b&gt;（后置归一化，norm_first=False）&lt;br&gt;x + 子层的输出，然后 nn.LayerNorm(d_model)，带可学习的权重和偏置。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Feed-forward&lt;/b&gt;&lt;br&gt;linear1 (d_model %1 → dim_feedforward %2, with bias), %3, dropout, linear2 (back to d_model, with bias).</source>
        <translation>&lt;b&gt;前馈网络&lt;/b&gt;&lt;br&gt;linear1（d_model %1 → dim_feedforward %2，带偏置），%3，dropout，linear2（映射回 d_model，带偏置）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;generator&lt;/b&gt;&lt;br&gt;nn.Linear(d_model %1, tgt_vocab_size %2) with bias: one logit per target word.</source>
        <translation>&lt;b&gt;generator&lt;/b&gt;&lt;br&gt;nn.Linear(d_model %1, tgt_vocab_size %2)，带偏置：每个目标词一个 logit。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;Turns the logits into probabilities over the target vocabulary.</source>
        <translation>&lt;b&gt;Softmax&lt;/b&gt;&lt;br&gt;将 logits 转换为目标词表上的概率。</translation>
    </message>
</context>
<context>
    <name>numfmt</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
</context>
</TS>
