//! Editor tools: what a click or drag in the viewport does. A tool is one file here that
//! implements [`EditorTool`]: its name, shortcut and help lines, its options panel, its
//! viewport input and its drawing. The `tool_list!` at the end of this file is the one
//! list of tools: the toolbar, the shortcut keys, the Help window and the options panel are
//! all generated from it, so a new tool is one new file plus one line there (see
//! `docs/architecture.md`, "Adding a tool").

mod agent_drag;

use egui::{Pos2, Rect};

use super::crowd_preview::CrowdPreview;
use super::goal_preview::GoalPreview;
use super::state::EditorState;
use super::viewport::camera::ViewTransform;

pub use crate::app::model::brush::{BrushMode, BrushSettings, BrushShape, BrushTarget, Stroke};
pub use crate::app::model::stamp_selection::{StampDrag, StampSelection};
pub use inspect::{CellInfo, TypeCost, Why, inspect_cell};

/// What a tool may read and change: the editor state (document edits go through
/// [`EditorState::execute`]), the crowd preview, and the goal preview (read only).
pub struct ToolCx<'a> {
    /// The open map, its selection and history.
    pub state: &'a mut EditorState,
    /// The crowd preview (spawn, select, order).
    pub crowd: &'a mut CrowdPreview,
    /// The goal tool's preview of the current pick.
    pub goal: &'a GoalPreview,
}

/// The canvas as a tool sees it this frame: where the map is on screen and the pointer.
pub struct Canvas<'a> {
    /// The canvas's `Ui` (input state, modifiers, cursor icon).
    pub ui: &'a egui::Ui,
    /// The canvas's response (clicks and drags on the map).
    pub response: &'a egui::Response,
    /// The canvas rectangle on screen.
    pub rect: Rect,
    /// The screen ↔ cell transform.
    pub transform: ViewTransform,
    /// Map size in cells.
    pub size: (u32, u32),
    /// The map cell under the pointer, if any.
    pub hover_cell: Option<(u32, u32)>,
}

impl Canvas<'_> {
    /// Continuous cell coordinates under a screen point (cell `(x, y)` spans `x..x+1`).
    #[must_use]
    pub fn cell_from_screen(&self, p: Pos2) -> (f32, f32) {
        self.transform.cell_from_screen(self.rect, p)
    }

    /// The integer cell under a screen point (may lie off the map).
    #[must_use]
    pub fn cell_at(&self, p: Pos2) -> (i32, i32) {
        let (x, y) = self.cell_from_screen(p);
        (x.floor() as i32, y.floor() as i32)
    }

    /// The map cell under a screen point, `None` off the map.
    #[must_use]
    pub fn map_cell_at(&self, p: Pos2) -> Option<(u32, u32)> {
        let (x, y) = self.cell_from_screen(p);
        (x >= 0.0 && y >= 0.0 && x < self.size.0 as f32 && y < self.size.1 as f32)
            .then_some((x as u32, y as u32))
    }

    /// Screen point of continuous cell coordinates.
    #[must_use]
    pub fn screen_from_cell(&self, cell: (f32, f32)) -> Pos2 {
        self.transform.screen_from_cell(self.rect, cell)
    }

    /// Where the pointer is pressing, or else hovering.
    #[must_use]
    pub fn pointer(&self) -> Option<Pos2> {
        self.response
            .interact_pointer_pos()
            .or_else(|| self.response.hover_pos())
    }

    /// Screen points per cell.
    #[must_use]
    pub fn px_per_cell(&self) -> f32 {
        self.transform.px_per_cell
    }
}

/// One editor tool. The functions without `self` describe it (the toolbar button, the
/// shortcut, the Help window); the methods run it. Defaults do nothing, so a tool writes only
/// what it uses.
pub trait EditorTool {
    /// The label on its button (kittest finds tools by it).
    fn name() -> &'static str
    where
        Self: Sized;

    /// Its keyboard shortcut (a plain key, no modifiers).
    fn shortcut() -> egui::Key
    where
        Self: Sized;

    /// One line for the button's tooltip and the Help window.
    fn description() -> &'static str
    where
        Self: Sized;

    /// Further Help lines: (keys, what they do with this tool).
    fn help() -> &'static [(&'static str, &'static str)]
    where
        Self: Sized,
    {
        &[]
    }

    /// Whether it edits the document (off while a nav package is viewed read-only).
    fn edits_document() -> bool
    where
        Self: Sized,
    {
        false
    }

    /// Whether it shows nav data, so rect re-bakes must send it back while it is active.
    fn reads_nav(&self) -> bool {
        false
    }

    /// What the status bar says while no cell is hovered.
    fn status_hint(&self) -> &'static str {
        "Hover the map to inspect a cell. Drag pans, wheel zooms, F fits."
    }

    /// Its options, in the left panel (a fixed-height area that scrolls).
    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>);

    /// Its keys while it is active (`Esc`, `R`, `Delete` …); shortcuts are plain keys.
    fn keys(&mut self, _input: &mut egui::InputState, _cx: &mut ToolCx<'_>) {}

    /// This frame's clicks and drags on the canvas while it is active (not while Space pans).
    fn input(&mut self, canvas: &Canvas<'_>, cx: &mut ToolCx<'_>);

    /// The tool is not receiving input this frame (another tool is active, or Space pans):
    /// end any gesture in progress.
    fn release(&mut self, _cx: &mut ToolCx<'_>) {}

    /// Whether a primary-button drag is the tool's own (paint, move a stamp, a spawn box)
    /// rather than a pan.
    fn owns_primary_drag(&self, _cx: &ToolCx<'_>) -> bool {
        false
    }

    /// Whether a gesture is in progress that undo must not cut (a brush stroke).
    fn is_busy(&self) -> bool {
        false
    }

    /// Whether the viewport outlines the hovered cell (tools that draw their own footprint
    /// say no).
    fn outlines_hover_cell(&self) -> bool {
        true
    }

    /// Draws on the canvas over the map and overlays while it is active.
    fn draw(&self, _painter: &egui::Painter, _canvas: &Canvas<'_>, _cx: &ToolCx<'_>) {}
}

/// The one list of tools: `Variant => module::Type`, in toolbar order. Declares each tool's
/// module, the [`Tool`] id with its name, shortcut and help, and [`Tools`], which holds one
/// of each and the active one.
macro_rules! tool_list {
    ($($variant:ident => $module:ident :: $ty:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// A tool's id.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub enum Tool {
            // The first tool of the list is active at start.
            #[default]
            $(#[doc = concat!("The ", stringify!($module), " tool.")] $variant),*
        }

        impl Tool {
            /// Every tool, in toolbar order.
            pub const ALL: [Tool; [$(Tool::$variant),*].len()] = [$(Self::$variant),*];

            /// The label on its button.
            #[must_use]
            pub fn label(self) -> &'static str {
                match self { $(Self::$variant => <$module::$ty as EditorTool>::name()),* }
            }

            /// Its keyboard shortcut key.
            #[must_use]
            pub fn key(self) -> egui::Key {
                match self { $(Self::$variant => <$module::$ty as EditorTool>::shortcut()),* }
            }

            /// Its shortcut as shown in tooltips.
            #[must_use]
            pub fn shortcut(self) -> &'static str {
                self.key().name()
            }

            /// One line for the tooltip.
            #[must_use]
            pub fn description(self) -> &'static str {
                match self { $(Self::$variant => <$module::$ty as EditorTool>::description()),* }
            }

            /// Its further Help lines.
            #[must_use]
            pub fn help(self) -> &'static [(&'static str, &'static str)] {
                match self { $(Self::$variant => <$module::$ty as EditorTool>::help()),* }
            }

            /// Whether it edits the document.
            #[must_use]
            pub fn edits_document(self) -> bool {
                match self { $(Self::$variant => <$module::$ty as EditorTool>::edits_document()),* }
            }
        }

        /// One of each tool, with its state between frames, and which is active.
        #[derive(Debug, Default)]
        pub struct Tools {
            active: Tool,
            $(#[doc = concat!("The ", stringify!($module), " tool and its state.")]
            pub $module: $module::$ty,)*
        }

        impl Tools {
            /// A tool's behaviour.
            #[must_use]
            pub fn get(&self, tool: Tool) -> &dyn EditorTool {
                match tool { $(Tool::$variant => &self.$module),* }
            }

            /// A tool's behaviour, to run it.
            pub fn get_mut(&mut self, tool: Tool) -> &mut dyn EditorTool {
                match tool { $(Tool::$variant => &mut self.$module),* }
            }
        }
    };
}

tool_list! {
    Inspect => inspect::InspectTool,
    Paint => paint::PaintTool,
    Stamp => stamp::StampTool,
    Link => link::LinkTool,
    Goal => goal::GoalTool,
    Spawn => spawn::SpawnTool,
    Command => command::CommandTool,
}

impl Tools {
    /// The active tool.
    #[must_use]
    pub fn active(&self) -> Tool {
        self.active
    }

    /// The active tool's behaviour.
    pub fn active_mut(&mut self) -> &mut dyn EditorTool {
        self.get_mut(self.active)
    }

    /// Whether `tool` can be used now: the editing tools are off while a package is viewed.
    #[must_use]
    pub fn available(tool: Tool, state: &EditorState) -> bool {
        !(state.read_only.is_some() && tool.edits_document())
    }

    /// Makes `tool` active if it is available; the one left ends its gesture.
    pub fn select(&mut self, tool: Tool, cx: &mut ToolCx<'_>) {
        if tool != self.active && Self::available(tool, cx.state) {
            self.active_mut().release(cx);
            self.active = tool;
        }
    }

    /// Falls back to the first tool when the active one is not available (a package was
    /// opened read-only), and tells the state whether the active tool reads nav data.
    pub fn settle(&mut self, cx: &mut ToolCx<'_>) {
        if !Self::available(self.active, cx.state) {
            self.select(Tool::ALL[0], cx);
        }
        cx.state.nav_wanted = self.get(self.active).reads_nav();
    }

    /// Whether the active tool is in a gesture that undo must not cut.
    #[must_use]
    pub fn is_busy(&self) -> bool {
        self.get(self.active).is_busy()
    }

    /// The shortcut keys that pick a tool, and the active tool's own keys.
    pub fn keys(&mut self, input: &mut egui::InputState, cx: &mut ToolCx<'_>) {
        for tool in Tool::ALL {
            let shortcut = egui::KeyboardShortcut::new(egui::Modifiers::NONE, tool.key());
            if input.consume_shortcut(&shortcut) {
                self.select(tool, cx);
            }
        }
        self.active_mut().keys(input, cx);
    }

    /// The Help window's tool lines: each tool's shortcut and description, then its own keys.
    #[must_use]
    pub fn help_lines() -> Vec<(&'static str, String)> {
        let mut lines = Vec::new();
        for tool in Tool::ALL {
            lines.push((
                tool.shortcut(),
                format!("{}: {}", tool.label(), tool.description()),
            ));
            for &(keys, what) in tool.help() {
                lines.push((keys, format!("{} tool: {what}", tool.label())));
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_its_own_shortcut_free_of_the_global_keys() {
        // The editor's own plain keys (crowd play and step, fit, help) and the keys tools
        // use while active.
        let taken = [
            egui::Key::P,
            egui::Key::Period,
            egui::Key::F,
            egui::Key::Home,
            egui::Key::F1,
            egui::Key::R,
            egui::Key::Delete,
            egui::Key::Escape,
        ];
        let mut keys: Vec<egui::Key> = Tool::ALL.iter().map(|t| t.key()).collect();
        for key in &keys {
            assert!(!taken.contains(key), "{key:?} is already an editor key");
        }
        keys.sort_by_key(|k| k.name());
        keys.dedup();
        assert_eq!(keys.len(), Tool::ALL.len(), "two tools share a shortcut");
    }

    #[test]
    fn the_help_names_every_tool_with_its_shortcut_and_lines() {
        let lines = Tools::help_lines();
        for tool in Tool::ALL {
            assert!(
                lines
                    .iter()
                    .any(|(k, what)| *k == tool.shortcut() && what.starts_with(tool.label())),
                "{tool:?} has no Help line"
            );
            for (keys, _) in tool.help() {
                assert!(lines.iter().any(|(k, _)| k == keys));
            }
        }
        let labels: Vec<&str> = Tool::ALL.iter().map(|t| t.label()).collect();
        assert_eq!(
            labels,
            [
                "Inspect", "Paint", "Stamp", "Link", "Goal", "Spawn", "Command"
            ],
            "toolbar order is the list's"
        );
    }
}
