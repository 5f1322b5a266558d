//! The parser: hclsyntax's recursive descent (`parser.go`,
//! `parser_template.go`) with an explicit stack of frames in place of the
//! call stack, so that no nesting of the text can overflow the thread's
//! stack.
//!
//! Each of hclsyntax's parsing functions that calls another (a body, an
//! attribute, a block, an expression and each kind of term, a template) is
//! a frame here: where Go calls, the frame returns [`Next::Call`] with
//! itself and the frame to run; where Go returns, it returns
//! [`Next::Return`] with the value, and the frame below resumes with it and
//! whether errors were found inside it (Go's `diags.HasErrors()` on the
//! callee's diagnostics). Recovery after an error is Go's, step for step
//! (the same tokens skipped, the same later errors suppressed), since an
//! error found later can be the one Terraform shows first.
//!
//! Every step either reads a token or moves to another frame, and no frame
//! is entered without reading a token first or after, so the work is linear
//! in the number of tokens.
//!
//! The frames are in `frame.rs`, the state they share in `state.rs`, and
//! each frame's steps in `body.rs`, `expr.rs` and `template.rs`: this is
//! the loop that runs them.

use super::ast::Body;
use super::frame::{BodyFrame, Done, Frame, Next, Value};
use super::state::Parser;
use super::token::Kind;

/// How deep the text may nest: expressions in expressions (brackets,
/// parentheses, calls, templates, `for`, indexes, conditionals), blocks in
/// blocks and unary operators on their operands, together. Far beyond any
/// real configuration (a few dozen levels); Terraform's parser runs out of
/// its goroutine's 1 GB stack between 85 000 and 100 000 levels of
/// brackets. Deeper text is refused (docs/behaviour.md, D34), which bounds
/// the parser's frames, at most four a level, to a few megabytes.
pub const MAX_NESTING: usize = 65_536;

impl Parser<'_> {
    /// Parses the whole text as a body (`ParseConfig`).
    pub(super) fn parse(&mut self) -> Body {
        let start = self.prev_span();
        let top = BodyFrame::new(Kind::Eof, start, true);
        let mut frames = vec![Frame::Body(Box::new(top))];
        self.enter_frame(false);
        // How many frames that nest are open (see [`MAX_NESTING`]).
        let mut nesting = 0usize;
        let mut ret: Option<Done> = None;
        while let Some(frame) = frames.pop() {
            self.steps += 1;
            let next = match frame {
                Frame::Body(f) => self.body(*f, ret.take()),
                Frame::Attribute(f) => self.attribute(f, ret.take()),
                Frame::Block(f) => self.block(f, ret.take()),
                Frame::Ternary(f) => self.ternary(f, ret.take()),
                Frame::Binary(f) => self.binary(f, ret.take()),
                Frame::Operand(f) => self.operand(f, ret.take()),
                Frame::Paren(f) => self.paren(f, ret.take()),
                Frame::Tuple(f) => self.tuple(f, ret.take()),
                Frame::Object(f) => self.object(f, ret.take()),
                Frame::For(f) => self.for_expr(f, ret.take()),
                Frame::Call(f) => self.call(f, ret.take()),
                Frame::Template(f) => self.template(f, ret.take()),
            };
            match next {
                Next::Call(parent, child) => {
                    // Every nesting goes through a new expression, a
                    // block's body or a unary operator's operand.
                    let nests = matches!(child, Frame::Ternary(_) | Frame::Body(_))
                        || matches!((&parent, &child), (Frame::Operand(_), Frame::Operand(_)));
                    if nests {
                        nesting += 1;
                        if nesting > MAX_NESTING {
                            let at = self.peek().span;
                            self.errors.abort(
                                "Too deeply nested",
                                format!(
                                    "This file nests blocks, brackets, templates, conditionals or unary operators more than {MAX_NESTING} levels deep, more than tfdisco reads."
                                ),
                                at,
                            );
                            return Body::default();
                        }
                    }
                    frames.push(parent);
                    frames.push(child);
                    self.enter_frame(nests);
                }
                Next::Return(value) => {
                    let mark = self.leave_frame();
                    if mark.nests {
                        nesting -= 1;
                    }
                    ret = Some(Done {
                        value,
                        errs: mark.errs,
                    });
                }
            }
        }
        match ret {
            Some(Done {
                value: Value::Body(body),
                ..
            }) => body,
            _ => Body::default(),
        }
    }
}
