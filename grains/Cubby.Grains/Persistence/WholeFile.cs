using System.Runtime.InteropServices;

namespace Cubby.Grains.Persistence;

/// <summary>
/// Writes a file of records whole or not at all: beside its place first (<c>NAME.writing</c>), on the disk before it
/// takes the name, then the rename on the disk too. A crash at any point leaves the file before it, or this one, never
/// a part of either.
/// </summary>
internal static partial class WholeFile
{
    /// <summary>The suffix of a file being written; one left by a crash is an unfinished write, never read.</summary>
    public const string WritingSuffix = ".writing";

    // O_RDONLY: enough to fsync a folder, and the same number on every Linux architecture (O_DIRECTORY is not).
    private const int ReadOnly = 0;

    private const int WriteBuffer = 64 * 1024;

    /// <summary>Writes the file at <paramref name="path"/> with what <paramref name="write"/> appends, replacing any before it.</summary>
    /// <exception cref="IOException">The folder cannot be written (full, read-only, gone); the file before is left as it was.</exception>
    public static void Write(string path, RecordFileKind kind, int slot, Action<RecordWriter> write)
    {
        var aside = path + WritingSuffix;
        try
        {
            using (var writer = new RecordWriter(new FileStream(aside, FileMode.Create, FileAccess.Write, FileShare.None, WriteBuffer), kind, slot))
            {
                write(writer);
                writer.Flush(toDisk: true);
            }

            File.Move(aside, path, overwrite: true);
        }
        catch
        {
            DeleteQuietly(aside);
            throw;
        }

        FlushDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
    }

    private static void DeleteQuietly(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (IOException)
        {
            // The failure being thrown says what went wrong; a leftover .writing file is never read.
        }
    }

    /// <summary>
    /// Puts a folder's entries (a rename, a new file) on the disk. .NET opens no folder as a file, so this asks the
    /// system directly; elsewhere than Linux it does nothing, and a power loss right after a rename may undo it.
    /// </summary>
    /// <summary>Has the file system put the folder's entries (a file made, renamed or deleted in it) on the disk.</summary>
    public static void FlushDirectory(string directory)
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        var descriptor = Open(directory, ReadOnly);
        if (descriptor < 0)
        {
            throw new IOException($"The folder '{directory}' could not be opened to flush it to disk (errno {Marshal.GetLastPInvokeError()}).");
        }

        try
        {
            if (FSync(descriptor) != 0)
            {
                throw new IOException($"The folder '{directory}' could not be flushed to disk (errno {Marshal.GetLastPInvokeError()}).");
            }
        }
        finally
        {
            _ = Close(descriptor);
        }
    }

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);

    [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static partial int FSync(int descriptor);

    [LibraryImport("libc", EntryPoint = "close")]
    private static partial int Close(int descriptor);
}
